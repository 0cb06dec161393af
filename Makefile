# Two commands set everything up on a fresh clone:
#   make chat   -> creates .venv, installs kept with the embedded model, starts `kept chat`
#   make test   -> creates .venv, installs kept with the embedded model and test tools, runs the tests
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)

.PHONY: chat test install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip wheel

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -e '.[local,dev]'
	$(BIN)/kept model install
	touch $(STAMP)

install: $(STAMP)

chat: install
	$(BIN)/kept chat

test: install
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV)

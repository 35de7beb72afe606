# `make example` and `make test` do all set-up on a fresh machine: they build
# .venv from this project's own files, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: example test lint bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

example: $(VENV)/.installed
	$(BIN)/python examples/tune_ranker.py

test: $(VENV)/.installed
	$(BIN)/python -m pytest

lint: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e ".[benchmarks]"
	$(BIN)/python benchmarks/bench_metrics.py

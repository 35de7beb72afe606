# `make example` and `make test` do all set-up on a fresh machine: they build
# .venv from this project's own files, then run. The example installs only what
# it needs (the `example` extra); the tests install the `test` extra beside it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: example test lint bench docs docs-check

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	touch $@

$(VENV)/.example: pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install --quiet -e ".[example]"
	touch $@

$(VENV)/.test: pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install --quiet -e ".[test]"
	# Open Bandit Pipeline, the reference of the counterfactual slate estimators: it declares Python < 3.11 and
	# pins old releases, so it comes without its dependencies (the tests import only its slate estimators).
	$(BIN)/python -m pip install --quiet --no-deps --ignore-requires-python obp==0.5.7
	touch $@

example: $(VENV)/.example
	$(BIN)/python examples/tune_ranker.py

# The test extra is installed: a reference test that would skip for want of its tool fails (tests/conftest.py).
# Two workers by default (the machines have two cores); the Spark tests share one worker and its one session.
PYTEST_WORKERS ?= 2
test: $(VENV)/.test
	RANKMETRICS_REQUIRE_REFERENCES=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup

lint: $(VENV)/.test
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(VENV)/.test
	$(BIN)/python -m pip install --quiet -e ".[benchmarks]"
	$(BIN)/python benchmarks/bench_metrics.py

# The site: Sphinx with numpydoc, MyST and sphinx-gallery (the examples run); warnings are errors.
docs: $(VENV)/.test
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

# Builds the site, then opens its pages in headless Chromium (Debian's chromium and chromium-driver).
docs-check: docs
	command -v chromium >/dev/null || apt-get install -y --no-install-recommends chromium chromium-driver
	$(BIN)/python -m pytest -m docs tests/test_docs.py

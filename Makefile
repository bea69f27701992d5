# ragls — the two set-up commands are `make demo` and `make test`; both build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

DEMO_PATH  ?= .
DEMO_QUERY ?= how are search results fused from several streams

.PHONY: demo test lint pytest bench format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## Index a folder (this repository by default) and answer a query with ranked results.
demo: $(STAMP)
	$(VENV)/bin/ragls search "$(DEMO_PATH)" "$(DEMO_QUERY)"

## The whole test suite: lint (ruff, mypy strict) then pytest.
test: lint pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench
	$(VENV)/bin/ruff format --check server tests bench
	$(VENV)/bin/mypy

pytest: $(STAMP)
	$(PY) -m pytest -q

## Benchmarks (not part of `make test`).
bench: $(STAMP)
	$(PY) bench/run.py

format: $(STAMP)
	$(VENV)/bin/ruff format server tests bench
	$(VENV)/bin/ruff check --fix server tests bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

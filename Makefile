# ragls — the two set-up commands are `make demo` and `make test`; both build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

DEMO_PATH  ?= .
DEMO_QUERY ?= how are search results fused from several streams

VSCODE := editor-clients/vscode
VSCODE_STAMP := $(VSCODE)/node_modules/.installed-stamp

E2E := $(VSCODE)/e2e

INSPECTOR := tests/mcp_server/inspector
INSPECTOR_STAMP := $(INSPECTOR)/node_modules/.installed-stamp

.PHONY: demo test test-fast lint pytest vscode-test vsix vscode-e2e wheel bench format settings clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## Index a folder (this repository by default) and answer a query with ranked results.
demo: $(STAMP)
	$(VENV)/bin/ragls search "$(DEMO_PATH)" "$(DEMO_QUERY)"

## The whole test suite: lint (ruff, mypy strict), pytest (core to daemon, and the Neovim plugin
## in headless Neovim), then the VS Code extension's unit and integration tests.
test: lint pytest vscode-test

## The unit tests only (no daemon, Neovim or CLI processes): well under a minute.
test-fast: lint
	$(PY) -m pytest -q -m "not slow"

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench
	$(VENV)/bin/ruff format --check server tests bench
	$(VENV)/bin/mypy

pytest: $(STAMP) $(INSPECTOR_STAMP)
	bash tests/store/install-postgres.sh
	$(PY) -m pytest -q

## The MCP Inspector (npm), whose CLI mode a test drives against `ragls mcp`.
$(INSPECTOR_STAMP): $(INSPECTOR)/package-lock.json
	cd $(INSPECTOR) && npm ci --no-audit --no-fund
	touch $(INSPECTOR_STAMP)

$(VSCODE_STAMP): $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund
	touch $(VSCODE_STAMP)

vscode-test: $(STAMP) $(VSCODE_STAMP)
	cd $(VSCODE) && npm run typecheck && npm run build
	cd $(VSCODE) && RAGLS_CACHE_DIR="$$(mktemp -d)" RAGLS_PYTHON="$(abspath $(PY))" npm test

## The VS Code extension as editor-clients/vscode/ragls.vsix.
vsix: $(VSCODE_STAMP)
	cd $(VSCODE) && npm run build && npm run package

## The packaged extension in a real VS Code workbench (code-server + Playwright + chromium), through
## the scenarios of editor-clients/vscode/e2e/drive.mjs. Not part of `make test` (the first run
## installs about 1 GB of tools: e2e/install.sh); CI runs it after `make test`.
E2E_STAMP := $(E2E)/node_modules/.installed-stamp
$(E2E_STAMP): $(E2E)/package-lock.json $(E2E)/node24/package-lock.json $(E2E)/install.sh
	bash $(E2E)/install.sh
	touch $(E2E_STAMP)

vscode-e2e: vsix $(STAMP) $(E2E_STAMP)
	bash $(E2E)/run-e2e.sh "$(abspath $(PY))" "$(abspath $(VSCODE))/ragls.vsix"

## The daemon and CLI as a wheel (dist/ragls-*.whl), to install with pipx or pip elsewhere.
wheel: $(STAMP)
	$(PY) -m pip wheel --no-deps --quiet -w dist .

## Benchmarks (not part of `make test`).
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	bash tests/store/install-postgres.sh
	$(PY) bench/run.py

## Regenerate the clients' copies of the settings schema (package.json, daemonSettings.ts,
## the Neovim help, protocol.md's table) and protocol.md's method tables; a test fails while
## they are stale.
settings: $(STAMP)
	$(PY) -m ragls.service.settings.files --write
	$(PY) -m ragls.lsp.protocol_tables --write

format: $(STAMP)
	$(VENV)/bin/ruff format server tests bench
	$(VENV)/bin/ruff check --fix server tests bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(VSCODE)/node_modules $(VSCODE)/out $(VSCODE)/out-test

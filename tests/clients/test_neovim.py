"""The Neovim plugin in a real headless Neovim against the real daemon (editor-clients/neovim)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.ingest.trees import make_tree

PLUGIN = Path(__file__).resolve().parents[2] / "editor-clients" / "neovim"


def nvim() -> str:
    found = shutil.which("nvim", path=str(Path(sys.executable).parent))
    assert found, "nvim is not in the virtual environment: run `make test` (it installs it)"
    return found


REPOSITORY = Path(__file__).resolve().parents[2]


def run_script(tmp_path: Path, script: str, files: dict[str, str | bytes] | None = None) -> str:
    """Run one Lua test script in headless Neovim against the real daemon; its report."""
    workspace = make_tree(
        tmp_path / "project",
        files
        or {
            "src/auth.py": "def login(user, password):\n    return verify(password)\n",
            "README.md": "# Project\n\nSomething about billing.\n",
        },
    )
    (workspace / ".git").mkdir()
    environment = {
        **os.environ,
        # For scripts that start tests.e2e.gated_serve rather than ragls itself.
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")])
        ),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    result = subprocess.run(
        [
            nvim(),
            "--clean",
            "--headless",
            "--cmd",
            f"set rtp+={PLUGIN}",
            "-l",
            str(PLUGIN / "tests" / script),
            sys.executable,
            str(workspace),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=environment,
        cwd=workspace,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "FAIL" not in report, report
    return report


def test_the_neovim_plugin_end_to_end(tmp_path: Path) -> None:
    report = run_script(tmp_path, "test_plugin.lua")
    assert report.count("ok   - ") >= 20, report


def test_coverage_warnings_reach_the_neovim_views(tmp_path: Path) -> None:
    report = run_script(tmp_path, "test_warnings.lua")
    assert report.count("ok   - ") == 8, report


def test_the_vim_lsp_enable_route_gets_the_commands(tmp_path: Path) -> None:
    report = run_script(tmp_path, "test_enable.lua")
    assert report.count("ok   - ") == 5, report


def test_a_project_cannot_set_the_user_only_settings(tmp_path: Path) -> None:
    report = run_script(tmp_path, "test_user_only.lua")
    assert report.count("ok   - ") == 13, report


def test_a_first_index_shows_partial_answers_in_the_neovim_views(tmp_path: Path) -> None:
    # The daemon is tests.e2e.gated_serve: its cold run commits partial generations after
    # 1, 2, 4, ..., 64 files and waits, 100 files in, for the script to release it.
    files: dict[str, str | bytes] = {
        f"pkg/m{i:03d}.py": f"def helper_{i}(value):\n    return 'marsupial{i:03d}'\n"
        for i in range(300)
    }
    report = run_script(tmp_path, "test_partial.lua", files)
    assert report.count("ok   - ") == 9, report


def test_workspace_symbol_finds_definitions_in_every_language_first(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "billing/ledger.py": (
            '"""Ledger checks."""\n\n\ndef reconcile_ledger(entries):\n    return sorted(entries)\n'
        ),
        "billing/report.py": (
            "from billing.ledger import reconcile_ledger\n\n\n"
            "def monthly(entries):\n    return reconcile_ledger(entries)\n"
        ),
        "svc/ledger.go": (
            "package svc\n\nfunc ReconcileLedger(entries []int) []int {\n\treturn entries\n}\n"
        ),
        "svc/report.go": (
            "package svc\n\nfunc Monthly(entries []int) []int {\n"
            "\treturn ReconcileLedger(entries)\n}\n"
        ),
        "lua/ledger.lua": (
            "local M = {}\n\nfunction M.reconcile_ledger(entries)\n  return entries\nend\n\n"
            "return M\n"
        ),
        "web/ledger.ts": (
            "export function reconcileLedger(entries: number[]): number[] {\n  return entries;\n}\n"
        ),
    }
    report = run_script(tmp_path, "test_workspace_symbol.lua", files)
    assert report.count("ok   - ") == 15, report


def test_references_by_name_fill_the_quickfix_list(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "billing/ledger.py": (
            '"""Ledger checks."""\n\n\ndef reconcile_ledger(entries):\n    return sorted(entries)\n'
        ),
        "billing/report.py": (
            "from billing.ledger import reconcile_ledger\n\n\n"
            "def monthly(entries):\n    return reconcile_ledger(entries)\n"
        ),
        "lua/ledger.lua": (
            "local M = {}\n\nfunction M.reconcile_ledger(entries)\n  return entries\nend\n\n"
            "return M\n"
        ),
        "lua/main.lua": (
            "local ledger = require('ledger')\n\nprint(ledger.reconcile_ledger({}))\n"
        ),
    }
    report = run_script(tmp_path, "test_references.lua", files)
    assert report.count("ok   - ") == 15, report

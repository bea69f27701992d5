"""The MCP Inspector's CLI mode (the reference client, from npm) against ``ragls mcp``: it lists
the tools and calls ``search_code`` (SPEC §12). ``make test`` installs the Inspector."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.ingest.trees import make_tree

INSPECTOR = (
    Path(__file__).resolve().parent / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
)


def inspect(root: Path, cache: Path, *method: str) -> dict[str, object]:
    # The Inspector starts the server with a minimal environment: pass PYTHONPATH on, so the
    # server is the code under test when a checkout is put first on it.
    python_path = os.environ.get("PYTHONPATH")
    done = subprocess.run(
        [
            str(INSPECTOR),
            "--cli",
            "-e",
            f"RAGLS_CACHE_DIR={cache}",
            *(["-e", f"PYTHONPATH={python_path}"] if python_path else []),
            sys.executable,
            "-m",
            "ragls",
            "mcp",
            "--root",
            str(root),
            *method,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def test_the_inspector_lists_the_tools_and_searches(tmp_path: Path) -> None:
    assert INSPECTOR.exists(), "the Inspector is not installed: `make test` installs it"
    root = make_tree(tmp_path / "shop", {"billing.py": "def charge_card(amount):\n    pass\n"})
    cache = tmp_path / "cache"
    listed = inspect(root, cache, "--method", "tools/list")
    names = {tool["name"] for tool in listed["tools"]}  # type: ignore[attr-defined]
    assert names == {
        "search_code",
        "build_context",
        "read_span",
        "index_status",
        "list_roots",
        "reindex",
        "find_symbol",
        "find_references",
        "outline",
        "repo_map",
    }
    called = inspect(
        root,
        cache,
        "--method",
        "tools/call",
        "--tool-name",
        "search_code",
        "--tool-arg",
        "query=charge card",
        "--tool-arg",
        "top_k=1",
    )
    [hit] = called["structuredContent"]["results"]  # type: ignore[index]
    assert hit["path"] == "billing.py" and hit["symbol"] == "charge_card"


def test_the_inspector_maps_a_multi_language_repository(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "shop",
        {
            "billing.py": "from tax import tax_rate\n\ndef charge_card(amount):\n"
            "    return amount * tax_rate()\n",
            "tax.py": "def tax_rate():\n    return 0.2\n",
            "svc/main.go": "package svc\n\nfunc Settle() int { return Fee() }\n",
            "svc/fee.go": "package svc\n\nfunc Fee() int { return 1 }\n",
            "web/app.ts": "export function renderCart(): string {\n  return 'cart';\n}\n",
        },
    )
    cache = tmp_path / "cache"
    mapped = inspect(
        root,
        cache,
        "--method",
        "tools/call",
        "--tool-name",
        "repo_map",
        "--tool-arg",
        "max_chars=1000",
    )
    text = mapped["structuredContent"]["map"]  # type: ignore[index]
    for line in ("def tax_rate():", "func Fee() int { return 1 }", "export function renderCart"):
        assert line in text
    found = inspect(
        root,
        cache,
        "--method",
        "tools/call",
        "--tool-name",
        "find_references",
        "--tool-arg",
        "name=Fee",
    )
    files = found["structuredContent"]["files"]  # type: ignore[index]
    assert [group["path"] for group in files] == ["svc/main.go"]
    assert files[0]["references"][0]["enclosing"] == "Settle"

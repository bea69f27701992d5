"""The MCP Inspector's CLI mode (the reference client, from npm) against ``ragls mcp``: it lists
the tools and calls ``search_code`` (SPEC §12). ``make test`` installs the Inspector."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.ingest.trees import make_tree

INSPECTOR = (
    Path(__file__).resolve().parent / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
)


def inspect(root: Path, cache: Path, *method: str) -> dict[str, object]:
    done = subprocess.run(
        [
            str(INSPECTOR),
            "--cli",
            "-e",
            f"RAGLS_CACHE_DIR={cache}",
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

"""The structure tools through the SDK's in-memory client, on a Python, Go and TypeScript
root built here: find_symbol, find_references, outline, repo_map (issue 28)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from ragls.mcp.server import create_mcp_server
from ragls.mcp.tools import RaglsTools
from tests.ingest.trees import make_tree
from tests.mcp_server.test_tools import call, error_of, tools_for

FILES = {
    "src/tax.py": 'def tax_rate(country):\n    """The VAT rate of a country."""\n    return 0.2\n',
    "src/billing.py": (
        "from src.tax import tax_rate\n\n\n"
        "class Invoice:\n"
        "    def total(self):\n"
        "        return sum(self.lines) * tax_rate('FR')\n\n"
        "    def tax(self):\n"
        "        return tax_rate('DE')\n"
    ),
    "svc/ledger.go": (
        "package svc\n\n// ParseLedger reads one ledger line.\n"
        "func ParseLedger(line string) int { return len(line) }\n"
    ),
    "svc/main.go": 'package svc\n\nfunc run() int {\n\treturn ParseLedger("x")\n}\n',
    "web/money.ts": (
        "export function formatMoney(value: number): string {\n  return value.toFixed(2);\n}\n"
    ),
    "web/app.ts": (
        'import { formatMoney } from "./money";\n\n'
        "export function renderTotal(total: number): string {\n"
        "  return formatMoney(total);\n}\n"
    ),
    ".env": "tax_rate=secret\n",
}


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[RaglsTools]:
    served = tools_for(make_tree(tmp_path / "shop", FILES))
    yield served
    served.close()


async def test_find_symbol_gives_signature_doc_and_lines_for_read_span(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        found = await call(client, "find_symbol", {"name": "ParseLedger"})
        [definition] = found["definitions"]
        assert (definition["path"], definition["start_line"], definition["signature"]) == (
            "svc/ledger.go",
            4,
            "func ParseLedger(line string) int { return len(line) }",
        )
        assert definition["doc"] == ["// ParseLedger reads one ledger line."]
        span = await call(
            client, "read_span", {"path": "svc/ledger.go", "start_line": definition["start_line"]}
        )
        assert span["content"].startswith("func ParseLedger")
        fuzzy = await call(client, "find_symbol", {"name": "rndtot", "match": "fuzzy"})
        assert [d["name"] for d in fuzzy["definitions"]] == ["renderTotal"]
        glob = await call(client, "find_symbol", {"name": "tax*", "match": "glob"})
        assert {d["name"] for d in glob["definitions"]} == {"tax_rate", "tax"}


async def test_find_references_groups_by_file_with_the_enclosing_definition(
    tools: RaglsTools,
) -> None:
    async with Client(create_mcp_server(tools)) as client:
        found = await call(client, "find_references", {"name": "tax_rate"})
        assert [group["path"] for group in found["files"]] == ["src/billing.py"]
        uses = found["files"][0]["references"]
        assert [(use["line"], use["enclosing"]) for use in uses] == [
            (6, "Invoice.total"),
            (9, "Invoice.tax"),
        ]
        assert found["total"] == 2 and not found["truncated"]
        assert [d["path"] for d in found["definitions"]] == ["src/tax.py"]
        cut = await call(client, "find_references", {"name": "tax_rate", "limit": 1})
        assert cut["truncated"] is True and cut["total"] == 2


async def test_outline_of_a_file_and_of_the_root(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        single = await call(client, "outline", {"path": "src/billing.py"})
        [file] = single["files"]
        [invoice] = file["definitions"]
        assert invoice["signature"] == "class Invoice:"
        assert [child["name"] for child in invoice["children"]] == ["total", "tax"]
        everything = await call(client, "outline", {})
        assert [f["path"] for f in everything["files"]] == [
            "src/billing.py",
            "src/tax.py",
            "svc/ledger.go",
            "svc/main.go",
            "web/app.ts",
            "web/money.ts",
        ]
        refused = await error_of(client, "outline", {"path": "../elsewhere"})
        assert "may not leave" in refused


async def test_repo_map_ranks_what_is_used_and_keeps_to_its_budget(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        mapped = await call(client, "repo_map", {"max_chars": 2_000})
        text = mapped["map"]
        assert text.startswith(("src/tax.py:", "svc/ledger.go:", "web/money.ts:"))
        for line in ("def tax_rate(country):", "func ParseLedger", "function formatMoney"):
            assert line in text
        assert mapped["chars"] <= 2_000 and mapped["total_files"] == 6
        small = await call(client, "repo_map", {"max_chars": 200})
        assert 0 < small["chars"] <= 200
        focused = await call(client, "repo_map", {"focus_files": ["web/app.ts"]})
        assert focused["files"][0]["path"] == "web/money.ts"
        queried = await call(client, "repo_map", {"query": "ledger line"})
        assert queried["files"][0]["path"] == "svc/ledger.go"
        bad = await client.call_tool("repo_map", {"max_chars": 10})
        assert bad.is_error


async def test_an_unknown_name_is_an_empty_answer_and_an_unknown_root_an_error(
    tools: RaglsTools,
) -> None:
    async with Client(create_mcp_server(tools)) as client:
        missing = await call(client, "find_symbol", {"name": "parseledger"})
        assert missing["definitions"] == [] and "match='fuzzy'" in missing["note"]
        unused = await call(client, "find_references", {"name": "no_such_name"})
        assert unused["files"] == [] and "case-sensitive" in unused["note"]
        message = await error_of(client, "find_symbol", {"name": "x", "root": "/nowhere"})
        assert "unknown root" in message

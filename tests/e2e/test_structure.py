"""``rag/definitions`` and ``rag/references`` through the real daemon, on a Python, Go and
TypeScript corpus built here: name-based structure, its errors, and its freshness (issue 28)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import (
    SERVER,
    first_generation,
    initialize_params,
    make_client,
    request,
)
from tests.e2e.test_live import wait_for_files
from tests.e2e.test_workspace_symbol import symbols
from tests.ingest.trees import make_tree

CORPUS: dict[str, str | bytes] = {
    "src/tax.py": 'def tax_rate(country):\n    """The VAT rate of a country."""\n    return 0.2\n',
    "src/billing.py": (
        "from src.tax import tax_rate\n\n\n"
        "class Invoice:\n"
        "    def total(self):\n"
        "        return sum(self.lines) * tax_rate('FR')\n"
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
    "tests/test_tax.py": (
        "from src.tax import tax_rate\n\n\ndef test_rate():\n    assert tax_rate('FR') > 0\n"
    ),
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "corpus", CORPUS)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def daemon(lsp_client: LanguageClient, corpus: Path) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(corpus))
    await first_generation(lsp_client)
    yield lsp_client
    await lsp_client.shutdown_session()


def plain(value: Any) -> Any:
    """pygls' namedtuples back to dicts, so answers compare as JSON."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


async def definitions(client: LanguageClient, **params: Any) -> list[dict[str, Any]]:
    answer = plain(await request(client, "rag/definitions", params))
    return list(answer["definitions"])


async def references(client: LanguageClient, **params: Any) -> dict[str, Any]:
    return dict(plain(await request(client, "rag/references", params)))


async def test_definitions_of_three_languages_with_signature_and_doc(
    daemon: LanguageClient, corpus: Path
) -> None:
    go = await definitions(daemon, name="ParseLedger")
    assert [(d["path"], d["kind"], d["signature"]) for d in go] == [
        ("svc/ledger.go", "function", "func ParseLedger(line string) int { return len(line) }")
    ]
    assert go[0]["doc"] == ["// ParseLedger reads one ledger line."]
    assert go[0]["uri"] == (corpus.resolve() / "svc/ledger.go").as_uri()
    assert go[0]["selectionRange"] == {
        "start": {"line": 3, "character": 5},
        "end": {"line": 3, "character": 16},
    }
    python = await definitions(daemon, name="tax_rate")
    assert python[0]["doc"] == ['"""The VAT rate of a country."""']
    fuzzy = await definitions(daemon, name="fmtmoney", match="fuzzy")
    assert [(d["name"], d["path"]) for d in fuzzy] == [("formatMoney", "web/money.ts")]
    glob = await definitions(daemon, name="*total", match="glob")
    assert {d["name"] for d in glob} == {"total", "renderTotal"}


async def test_references_by_name_are_grouped_by_file_with_the_enclosing_definition(
    daemon: LanguageClient,
) -> None:
    answer = await references(daemon, name="tax_rate")
    assert [group["path"] for group in answer["files"]] == ["src/billing.py", "tests/test_tax.py"]
    use = answer["files"][0]["references"][0]
    assert (use["enclosing"], use["enclosingKind"], use["text"]) == (
        "Invoice.total",
        "method",
        "return sum(self.lines) * tax_rate('FR')",
    )
    assert [d["path"] for d in answer["definitions"]] == ["src/tax.py"]
    go = await references(daemon, name="formatMoney")
    assert [group["path"] for group in go["files"]] == ["web/app.ts"]


async def test_references_at_a_position_use_the_name_under_it(
    daemon: LanguageClient, corpus: Path
) -> None:
    uri = (corpus / "svc/ledger.go").as_uri()
    answer = await references(daemon, uri=uri, position={"line": 3, "character": 7})
    assert answer["name"] == "ParseLedger"
    assert [group["path"] for group in answer["files"]] == ["svc/main.go"]
    assert answer["files"][0]["references"][0]["enclosing"] == "run"
    by_path = await references(daemon, path="web/app.ts", position={"line": 3, "character": 10})
    assert by_path["name"] == "formatMoney"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "name is required"),
        ({"path": "svc/ledger.go", "position": {"line": 0, "character": 0}}, "no definition"),
        ({"path": "../x.go", "position": {"line": 0, "character": 0}}, "may not leave"),
        ({"uri": "file:///elsewhere/x.go", "position": {"line": 0, "character": 0}}, "holds"),
        ({"path": "svc/ledger.go"}, "go together"),
        ({"path": "svc/ledger.go", "position": {"line": -1, "character": 0}}, "position.line"),
        ({"name": 3}, "name must be a string"),
    ],
)
async def test_bad_references_requests_are_invalid_params(
    daemon: LanguageClient, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await request(daemon, "rag/references", params)


async def test_an_unknown_match_is_invalid_params(daemon: LanguageClient) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="match must be one of"):
        await request(daemon, "rag/definitions", {"name": "x", "match": "regex"})


async def test_an_edit_is_in_workspace_symbol_and_references_as_soon_as_in_search(
    daemon: LanguageClient, corpus: Path
) -> None:
    """Add, rename, remove a function: workspace/symbol and rag/references follow each commit
    that search sees (the file watcher's changes through the daemon)."""
    caller = corpus / "src" / "report.py"
    caller.write_text(
        "def summarise_ledger():\n    return tax_rate('DE')  # platypus\n\n\n"
        "def tax_rate(country):\n    return 0.19\n"
    )
    await wait_for_files(daemon, "platypus", {"src/report.py"})
    assert [s.name for s in await symbols(daemon, "summarise_ledger")] == ["summarise_ledger"]
    answer = await references(daemon, name="tax_rate")
    assert "src/report.py" in [group["path"] for group in answer["files"]]
    assert {d["path"] for d in answer["definitions"]} == {"src/tax.py", "src/report.py"}

    caller.write_text("def summarise_books():\n    return rate_of('DE')  # echidna\n")
    await wait_for_files(daemon, "echidna", {"src/report.py"})
    assert [s.name for s in await symbols(daemon, "summarise_books")] == ["summarise_books"]
    assert await symbols(daemon, "summarise_ledger") == []
    answer = await references(daemon, name="tax_rate")
    assert "src/report.py" not in [group["path"] for group in answer["files"]]
    assert [g["path"] for g in (await references(daemon, name="rate_of"))["files"]] == [
        "src/report.py"
    ]

    caller.unlink()
    await wait_for_files(daemon, "echidna", set())
    assert await symbols(daemon, "summarise_books") == []
    assert (await references(daemon, name="rate_of"))["files"] == []

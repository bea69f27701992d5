"""``workspace/symbol`` through the real daemon: definitions of every chunked language, ranked,
and kept as fresh as search while files change (issue 28)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import (
    DEADLINE,
    SERVER,
    eventually,
    first_generation,
    initialize_params,
    make_client,
    request,
)
from tests.e2e.test_live import wait_for_files


async def symbols(client: LanguageClient, query: str) -> list[Any]:
    answer = await asyncio.wait_for(
        client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)), DEADLINE
    )
    return list(answer or [])


def found(answer: list[Any], root: Path) -> list[tuple[str, str, int]]:
    """(name, path relative to ``root``, kind) of each symbol, in order."""
    return [
        (
            symbol.name,
            Path(symbol.location.uri.removeprefix("file://")).relative_to(root).as_posix(),
            symbol.kind,
        )
        for symbol in answer
    ]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def uninitialized(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client


async def test_the_server_says_it_answers_workspace_symbol(
    uninitialized: LanguageClient, workspace: Path
) -> None:
    result = await uninitialized.initialize_session(initialize_params(workspace))
    assert result.capabilities.workspace_symbol_provider
    await first_generation(uninitialized)
    await uninitialized.shutdown_session()


async def test_a_class_and_its_method_are_found_by_name(
    client: LanguageClient, workspace: Path
) -> None:
    answer = await symbols(client, "Invoice")
    assert found(answer, workspace.resolve())[0] == (
        "Invoice",
        "src/billing.py",
        types.SymbolKind.Class,
    )
    assert answer[0].location.range.start.line == 0
    method = (await symbols(client, "total"))[0]
    assert (method.name, method.kind, method.container_name) == (
        "total",
        types.SymbolKind.Method,
        "Invoice",
    )


async def test_definitions_of_several_languages_answer_one_query(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "svc").mkdir()
    (workspace / "svc" / "main.go").write_text(
        "package main\n\nfunc ParseLedgerEntry(s string) int { return 0 }\n"
    )
    (workspace / "svc" / "ledger.js").write_text(
        "export function parseLedgerLine(line) {\n  return line;\n}\n"
    )
    (workspace / "svc" / "Ledger.java").write_text(
        "class Ledger {\n  void parseLedgerTotals() {}\n}\n"
    )

    async def all_three() -> bool:
        names = {name for name, _, _ in found(await symbols(client, "parseledger"), workspace)}
        return names == {"ParseLedgerEntry", "parseLedgerLine", "parseLedgerTotals"}

    await eventually(all_three, "the Go, JavaScript and Java definitions")


async def test_exact_names_come_before_prefixes_and_fuzzy_matches(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "src" / "names.py").write_text(
        "def render_page():\n    pass\n\n"
        "def render():\n    pass\n\n"
        "def pre_render():\n    pass\n\n"
        "def rxeynder():\n    pass\n"
    )
    await wait_for_files(client, "rxeynder", {"src/names.py"})
    answer = found(await symbols(client, "render"), workspace.resolve())
    definitions = [name for name, _, _ in answer if name != "render" or answer]
    assert definitions[:4] == ["render", "render_page", "pre_render", "rxeynder"]


async def test_an_edit_is_in_workspace_symbol_as_soon_as_in_search(
    client: LanguageClient, workspace: Path
) -> None:
    module = workspace / "src" / "shapes.py"
    module.write_text("def area_of_hexagon(side):\n    return side * 2.598  # quokka\n")
    await wait_for_files(client, "quokka", {"src/shapes.py"})
    assert [s.name for s in await symbols(client, "area_of_hexagon")] == ["area_of_hexagon"]

    # Renamed: the search sees the new generation, so must the symbol index.
    module.write_text("def area_of_octagon(side):\n    return side * 4.828  # wombat\n")
    await wait_for_files(client, "wombat", {"src/shapes.py"})
    assert [s.name for s in await symbols(client, "area_of_octagon")] == ["area_of_octagon"]
    assert await symbols(client, "area_of_hexagon") == []

    module.unlink()
    await wait_for_files(client, "wombat", set())
    assert await symbols(client, "area_of_octagon") == []


async def test_status_counts_the_symbols(client: LanguageClient) -> None:
    status = await request(client, "rag/status")
    # login, Invoice, total defined; verify_password called
    assert (status.symbols.definitions, status.symbols.references) == (3, 1)

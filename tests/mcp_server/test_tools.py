"""The MCP server through the SDK's in-memory client: every tool, every refusal (SPEC §12)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from ragls.ingest import indexer
from ragls.mcp.server import create_mcp_server
from ragls.mcp.tools import RaglsTools
from ragls.service.rag_service import RagService
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions
from tests.e2e import gated_serve
from tests.ingest.secret_corpus import planted_corpus
from tests.ingest.trees import make_tree

FILES = {
    "src/payments.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
    "src/refunds.py": "class Refund:\n    def apply(self, ledger):\n        return ledger\n",
    "web/app.ts": "export function chargeCard(amount: number) {\n  return amount;\n}\n",
    "docs/guide.md": "# Guide\n\nCards are charged through the gateway.\n",
    "notes.log": "ignored by .gitignore",
    ".gitignore": "*.log\n",
    ".env": "TOKEN=secret",
    "long.py": "".join(f"value_{i} = {i}\n" for i in range(3000)),
}


def tools_for(*roots: Path, start: bool = True) -> RaglsTools:
    tools = RaglsTools(Workspace(WorkspaceOptions(watch=False)), list(roots))
    if start:
        tools.start()
        deadline = time.monotonic() + 30
        # Whole generations: a slow first run answers from partial ones before (ingest.partial).
        while any(r["generation"] == 0 or r["indexing"] for r in tools.list_roots()["roots"]):
            assert time.monotonic() < deadline, "the first index never finished"
            time.sleep(0.02)
    return tools


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "shop", FILES)


@pytest.fixture
def tools(root: Path) -> Iterator[RaglsTools]:
    served = tools_for(root)
    yield served
    served.close()


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error_of(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]


async def test_the_tools_are_listed_with_bounded_schemas(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == {
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
        top_k = listed["search_code"].input_schema["properties"]["top_k"]
        assert (top_k["minimum"], top_k["maximum"]) == (1, 50)
        assert all(tool.description for tool in listed.values())
        assert listed["read_span"].annotations.read_only_hint is True  # type: ignore[union-attr]


async def test_write_tools_only_with_the_flag(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools, allow_writes=True)) as writer:
        names = {tool.name for tool in (await writer.list_tools()).tools}
        assert {"add_document", "remove_document"} <= names
        added = await call(writer, "add_document", {"content": "zanzibar ledger note"})
        found = await call(writer, "search_code", {"query": "zanzibar", "top_k": 1})
        assert found["results"][0]["id"] == added["id"]
        removed = await call(writer, "remove_document", {"id": added["id"]})
        assert removed["removed"] is True


async def test_search_code_returns_located_hits_with_freshness(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        answer = await call(client, "search_code", {"query": "charge card", "top_k": 3})
        first = answer["results"][0]
        assert first["path"] in ("src/payments.py", "web/app.ts")
        assert first["start_line"] == 1 and first["end_line"] >= 2
        assert first["kind"] == "function" and first["snippet"].startswith(("def", "export"))
        assert answer["generation"] >= 1 and answer["stale"] is False
        assert len(answer["results"]) <= 3


async def test_search_code_filters_by_glob_and_language(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        typescript = await call(
            client, "search_code", {"query": "charge card", "language": "TypeScript"}
        )
        assert {hit["path"] for hit in typescript["results"]} == {"web/app.ts"}
        globbed = await call(client, "search_code", {"query": "charge", "path_glob": "src/**"})
        assert globbed["results"] and all(h["path"].startswith("src/") for h in globbed["results"])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "   "}, "query is empty"),
        ({"query": "x", "top_k": 0}, "greater than or equal to 1"),
        ({"query": "x", "top_k": 51}, "less than or equal to 50"),
        ({"query": "x", "root": "/nowhere"}, "unknown root '/nowhere'; this server serves: "),
        ({"query": "x", "root": "/x\x00"}, "unknown root '/x\\x00'; this server serves: "),
        ({"query": "x", "path_glob": "[z-a]"}, "path_glob '[z-a]' is not a valid glob: bad"),
    ],
)
async def test_search_code_errors_say_what_to_fix(
    tools: RaglsTools, arguments: dict[str, Any], message: str
) -> None:
    async with Client(create_mcp_server(tools)) as client:
        assert message in await error_of(client, "search_code", arguments)


async def test_build_context_respects_its_budget(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        full = await call(client, "build_context", {"query": "charge the card", "top_k": 5})
        assert full["prompt"].startswith("<tnsai-memory>\n<evidence>")
        assert full["kept"] == full["found"] >= 2
        small = len(full["prompt"]) - 1
        cut = await call(client, "build_context", {"query": "charge the card", "max_chars": small})
        assert len(cut["prompt"]) <= small and 0 < cut["kept"] < full["kept"]
        assert (
            cut["prompt"].count("<evidence>") == cut["prompt"].count("</evidence>") == cut["kept"]
        )
        assert cut["prompt"].endswith(
            "<tnsai-user-message>\ncharge the card\n</tnsai-user-message>"
        )


async def test_read_span_reads_lines_of_admitted_files(tools: RaglsTools) -> None:
    async with Client(create_mcp_server(tools)) as client:
        span = await call(client, "read_span", {"path": "src/refunds.py", "start_line": 2})
        assert span["content"] == "    def apply(self, ledger):\n        return ledger"
        assert (span["start_line"], span["end_line"], span["total_lines"]) == (2, 3, 3)
        capped = await call(client, "read_span", {"path": "long.py", "start_line": 10})
        assert capped["end_line"] - capped["start_line"] + 1 == 2000


async def test_read_span_refuses_what_indexing_refuses(tools: RaglsTools, root: Path) -> None:
    async with Client(create_mcp_server(tools)) as client:
        os.symlink(root / "src" / "payments.py", root / "link.py")
        outside = root.parent / "outside.py"
        outside.write_text("secret = 1\n")
        refusals = {
            ".env": "secret",
            "notes.log": "ignored (.gitignore:1: *.log)",
            "../outside.py": "'..' may not leave the root",
            str(outside): "not an absolute one",
            "link.py": "symbolic link",
            "src": "a directory",
            "missing.py": "missing",
            "src/pay\x00ments.py": "path holds a NUL character",
            "src/" + "x" * 300 + ".py": "missing (cannot be looked at: File name too long)",
        }
        for path, reason in refusals.items():
            message = await error_of(client, "read_span", {"path": path})
            assert reason in message, (path, message)
        assert "end_line" in await error_of(
            client, "read_span", {"path": "long.py", "start_line": 1, "end_line": 5000}
        )


async def test_status_roots_and_reindex(tools: RaglsTools, root: Path) -> None:
    async with Client(create_mcp_server(tools)) as client:
        status = await call(client, "index_status", {})
        assert status["root"] == str(root.resolve()) and status["files"] >= 5
        assert status["skipped"].get("secret") == 1 and status["cache"]["path"]
        roots = await call(client, "list_roots", {})
        assert [r["name"] for r in roots["roots"]] == ["shop"]
        (root / "src" / "invoices.py").write_text("def settle_invoice(total):\n    return total\n")
        done = await call(client, "reindex", {"wait": True})
        assert done["done"] and done["status"]["last_run"]["files_chunked"] == 1
        found = await call(client, "search_code", {"query": "settle invoice", "top_k": 1})
        assert found["results"][0]["path"] == "src/invoices.py"


async def test_a_root_still_being_built_says_so(root: Path) -> None:
    pending = tools_for(root, start=False)
    try:
        async with Client(create_mcp_server(pending)) as client:
            message = await error_of(client, "search_code", {"query": "charge"})
            assert "is still being built" in message and "index_status" in message
    finally:
        pending.close()


async def test_a_first_index_answers_partially_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run stops 100 files in until the release file exists; it has committed partial
    # generations after 1, 2, 4, ..., 64 files by then (tests.e2e.gated_serve).
    monkeypatch.setattr(indexer, "process_all", gated_serve.gated)
    files = {
        f"pkg/m{i:03d}.py": f"def helper_{i}():\n    return 'wombat{i:03d}'\n" for i in range(300)
    }
    root = make_tree(tmp_path / "ws", files)
    workspace = Workspace(
        WorkspaceOptions(watch=False, persistence_enabled=False),
        service_factory=lambda: RagService(
            pipeline="workspace", partial_commits=gated_serve.BY_WORK_DONE
        ),
    )
    served = RaglsTools(workspace, [root])
    try:
        served.start()
        deadline = time.monotonic() + 30
        while served.index_status()["files"] != 64:
            assert time.monotonic() < deadline, "no partial generation of 64 files"
            time.sleep(0.02)
        async with Client(create_mcp_server(served)) as client:
            status = await call(client, "index_status", {})
            assert status["partial"] and status["indexing"] and status["generation"] == 1
            found = await call(client, "search_code", {"query": "wombat003", "top_k": 1})
            assert found["results"][0]["path"] == "pkg/m003.py" and found["partial"]
            assert found["progress"] == {"indexed_files": 64, "total_files": 300}
            assert "partial answer" in found["note"] and "64/300 files" in found["note"]
            context = await call(client, "build_context", {"query": "wombat003"})
            assert context["partial"] and "pkg/m003.py" in context["prompt"]
            (tmp_path / gated_serve.GATE_FILE).touch()
            while served.index_status()["indexing"]:
                assert time.monotonic() < deadline + 30, "the run never finished"
                time.sleep(0.02)
            whole = await call(client, "search_code", {"query": "wombat250", "top_k": 1})
            assert whole["results"][0]["path"] == "pkg/m250.py"
            assert not whole["partial"] and "note" not in whole and "progress" not in whole
    finally:
        (tmp_path / gated_serve.GATE_FILE).touch()
        served.close()


async def test_two_roots_are_named_by_folder_or_path(tmp_path: Path) -> None:
    first = make_tree(tmp_path / "alpha", {"a.py": "def alpha_only():\n    pass\n"})
    second = make_tree(tmp_path / "beta", {"b.py": "def beta_only():\n    pass\n"})
    served = tools_for(first, second)
    try:
        async with Client(create_mcp_server(served)) as client:
            by_name = await call(client, "search_code", {"query": "beta only", "root": "beta"})
            assert by_name["results"][0]["path"] == "b.py"
            by_path = await call(client, "read_span", {"path": "a.py", "root": str(first)})
            assert by_path["content"].startswith("def alpha_only")
            assert "unknown root 'gamma'" in await error_of(
                client, "index_status", {"root": "gamma"}
            )
    finally:
        served.close()


async def test_read_span_masks_what_the_index_masks(tmp_path: Path) -> None:
    corpus = planted_corpus()
    root = make_tree(tmp_path / "planted", {p.file: p.text for p in corpus})
    served = tools_for(root)
    try:
        async with Client(create_mcp_server(served)) as client:
            for planted in corpus:
                span = await call(client, "read_span", {"path": planted.file})
                assert "redacted:" in span["content"], planted.file
                for secret in planted.secrets:
                    assert secret not in span["content"], planted.file
                assert span["total_lines"] == planted.text.count("\n")  # lines kept
    finally:
        served.close()


async def test_read_span_numbers_lines_as_search_hits_do(tmp_path: Path) -> None:
    text = "page_one = 1\f\nsecond = 2\x1c\nthird = 3\u2028still_third = 4\nneedle_marker = 5\n"
    root = make_tree(tmp_path / "odd", {"odd.py": text})
    served = tools_for(root)
    try:
        async with Client(create_mcp_server(served)) as client:
            [hit] = (await call(client, "search_code", {"query": "needle_marker", "top_k": 1}))[
                "results"
            ]
            line = hit["start_line"] + hit["snippet"].split("\n").index("needle_marker = 5")
            span = await call(client, "read_span", {"path": "odd.py", "start_line": line})
            assert span["content"].split("\n")[0] == "needle_marker = 5"
            assert span["total_lines"] == 4
    finally:
        served.close()

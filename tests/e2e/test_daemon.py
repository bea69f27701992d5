"""The real daemon over stdio: index, search, fence, documents, sessions, errors (SPEC §9)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.e2e.conftest import request
from tests.test_protocol_doc import json_examples, strict_json


async def test_search_returns_ranked_chunks_with_wire_metadata(client: LanguageClient) -> None:
    answer = await request(client, "rag/search", {"query": "verify password login", "topK": 3})
    top = answer.results[0]
    assert top.metadata.file == "src/auth.py"
    assert (top.metadata.startLine, top.metadata.endLine) == (1, 2)
    assert (top.metadata.symbol, top.metadata.kind, top.metadata.language) == (
        "login",
        "function",
        "python",
    )
    assert top.id == "src/auth.py:1-2"
    assert top.score > 0


async def test_ignored_and_secret_files_are_not_searchable(client: LanguageClient) -> None:
    answer = await request(client, "rag/search", {"query": "zebra", "topK": 10})
    assert answer.results == []


async def test_context_prompt_is_the_fence(client: LanguageClient) -> None:
    answer = await request(
        client, "rag/buildContextPrompt", {"query": "How is the invoice total computed?"}
    )
    assert answer.prompt.startswith("<tnsai-memory>\n<evidence>\n<document-id>src/billing.py:1-3")
    assert answer.prompt.endswith(
        "<tnsai-user-message>\nHow is the invoice total computed?\n</tnsai-user-message>"
    )


async def test_status_reports_the_generation(client: LanguageClient, workspace: Path) -> None:
    status = await request(client, "rag/status")
    assert status.session == workspace.as_uri()
    assert (status.fileCount, status.generation, status.indexing) == (3, 1, False)
    assert status.skipped.secret == 1 and status.skipped.ignored == 1
    assert status.watcher.state == "watching"


async def test_the_status_example_of_protocol_md_names_the_answers_keys(
    client: LanguageClient,
) -> None:
    status = await request(client, "rag/status")
    example = next(e for e in json_examples() if '"fileCount"' in e)
    documented = strict_json(example)
    assert sorted(documented) == sorted(status._fields)
    assert sorted(documented["cache"]) == sorted(status.cache._fields)
    assert sorted(documented["lastRun"]) == sorted(status.lastRun._fields)


async def test_document_management(client: LanguageClient) -> None:
    added = await request(
        client,
        "rag/addDocument",
        {"content": "Rotate signing keys every month", "metadata": {"topic": "ops"}},
    )
    listed = await request(client, "rag/listDocuments")
    assert [d.id for d in listed.documents] == [added.id]
    assert listed.documents[0].preview == "Rotate signing keys every month"
    found = await request(client, "rag/getDocument", {"id": added.id})
    assert found.document.metadata.topic == "ops"
    hits = await request(client, "rag/search", {"query": "signing keys"})
    assert hits.results[0].id == added.id
    removed = await request(client, "rag/removeDocument", {"id": added.id})
    assert removed.removed is True
    missing = await request(client, "rag/getDocument", {"id": added.id})
    assert missing.document is None
    again = await request(client, "rag/removeDocument", {"id": added.id})
    assert again.removed is False


async def test_clear_then_reindex(client: LanguageClient) -> None:
    cleared = await request(client, "rag/clear")
    assert (cleared.fileCount, cleared.generation) == (0, 0)
    assert (await request(client, "rag/search", {"query": "invoice"})).results == []
    status = await request(client, "rag/index", {"force": True})
    assert status.fileCount == 3
    assert (await request(client, "rag/search", {"query": "invoice"})).results


async def test_a_system_folder_is_refused_as_an_index_path(client: LanguageClient) -> None:
    await request(client, "rag/createSession", {"session": "snoop"})
    for path in ("/etc", "/", "/usr/lib"):
        with pytest.raises(JsonRpcInvalidParams, match="allowedRoots"):
            await request(client, "rag/index", {"session": "snoop", "path": path})
    hits = await request(client, "rag/search", {"query": "root passwd", "session": "snoop"})
    assert hits.results == []


async def test_named_sessions(client: LanguageClient, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("the quarterly kangaroo report")
    await request(client, "rag/createSession", {"session": "assistant"})
    with pytest.raises(JsonRpcInvalidParams, match=r"outside the workspace folders.*allowedRoots"):
        await request(client, "rag/index", {"session": "assistant", "path": str(other)})
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"ragls": {"allowedRoots": [str(other)]}}),
    )
    status = None
    for _ in range(100):  # the notification is applied off the event loop: poll, no sleep
        try:
            status = await request(
                client, "rag/index", {"session": "assistant", "path": str(other)}
            )
            break
        except JsonRpcInvalidParams:
            await asyncio.sleep(0.05)
    assert status is not None and status.fileCount == 1
    hits = await request(client, "rag/search", {"query": "kangaroo", "session": "assistant"})
    assert hits.results[0].metadata.file == "notes.txt"
    assert (await request(client, "rag/search", {"query": "kangaroo"})).results == []
    sessions = await request(client, "rag/sessions")
    assert [s.session for s in sessions.sessions][1:] == ["assistant"]
    closed = await request(client, "rag/closeSession", {"session": "assistant"})
    assert closed.closed is True


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("rag/search", {}, "query is required"),
        ("rag/search", {"query": 3}, "query must be a string"),
        ("rag/search", {"query": "x", "topK": 0}, "topK must be between 1 and 100"),
        ("rag/search", {"query": "x", "topK": 101}, "topK must be between 1 and 100"),
        ("rag/search", {"query": "x", "topK": "5"}, "topK must be an integer"),
        ("rag/search", {"query": "x" * 65_537}, "query must be at most"),
        ("rag/search", {"query": "x", "session": "nope"}, "unknown session"),
        ("rag/buildContextPrompt", {"query": None}, "query is required"),
        ("rag/addDocument", {"content": ""}, "content must not be empty"),
        ("rag/addDocument", {"content": "x", "metadata": {"n": 1}}, "metadata.n must be a string"),
        ("rag/addDocument", {"content": "x", "metadata": []}, "metadata must be an object"),
        ("rag/getDocument", {}, "id is required"),
        ("rag/index", {"path": "/tmp"}, "path cannot be given"),
        ("rag/index", {"force": "yes"}, "force must be true or false"),
        ("rag/createSession", {"session": " "}, "session must be a non-blank name"),
    ],
)
async def test_bad_params_are_invalid_params_naming_the_field(
    client: LanguageClient, method: str, params: dict[str, object], field: str
) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await request(client, method, params)
    assert raised.value.code == -32602
    assert field in raised.value.message
    status = await request(client, "rag/status")
    assert status.fileCount == 3  # nothing was lost


async def test_unknown_method_is_method_not_found(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await request(client, "rag/doesNotExist")
    assert raised.value.code == -32601


async def test_explain_path_names_the_rule(client: LanguageClient) -> None:
    ignored = await request(client, "rag/explainPath", {"path": "ignored/secret_plan.txt"})
    assert (ignored.indexed, ignored.reason) == (False, "ignored")
    assert ignored.detail.startswith(".gitignore:1: ignored/")
    secret = await request(client, "rag/explainPath", {"path": ".env"})
    assert (secret.indexed, secret.reason) == (False, "secret")
    indexed = await request(client, "rag/explainPath", {"path": "src/auth.py"})
    assert (indexed.indexed, indexed.chunks, indexed.format) == (True, 1, "code")
    with pytest.raises(JsonRpcException) as raised:
        await request(client, "rag/explainPath", {})
    assert raised.value.code == -32602 and "path is required" in raised.value.message

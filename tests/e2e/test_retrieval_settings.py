"""Pipelines and BM25 coverage over the real daemon: the complete index by default, warnings
when a configured cap drops chunks, the pipeline setting applied live (SPEC §3, §10)."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import (
    SERVER,
    eventually,
    first_generation,
    initialize_params,
    make_client,
    request,
)


async def test_the_default_index_is_complete_and_code_aware(client: LanguageClient) -> None:
    status = await request(client, "rag/status")
    assert status.pipeline == "workspace"
    assert status.warnings == []
    assert status.corpusDocuments == status.chunkCount
    # An identifier's part finds it: verify_password by "verify".
    answer = await request(client, "rag/search", {"query": "verify", "topK": 3})
    assert answer.results[0].metadata.file == "src/auth.py"
    assert answer.warnings == []
    # Which generation answered, and whether changes were pending (none: the index is idle).
    assert (answer.generation, answer.stale) == (status.generation, False)
    assert status.stale is False


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def capped_bm25(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    options = {"debounceMs": 50, "pipeline": "seed", "bm25": {"maxDocuments": 2}}
    await lsp_client.initialize_session(initialize_params(workspace, options))
    await first_generation(lsp_client)
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_a_configured_cap_is_reported_by_status_and_every_answer(
    capped_bm25: LanguageClient,
) -> None:
    status = await request(capped_bm25, "rag/status")
    assert status.pipeline == "seed"
    assert (status.bm25Documents, status.corpusDocuments) == (2, status.chunkCount)
    [warning] = status.warnings
    assert warning.startswith(f"BM25 covers 2 of {status.chunkCount} chunks")
    search = await request(capped_bm25, "rag/search", {"query": "invoice total"})
    assert search.warnings == [warning]
    prompt = await request(capped_bm25, "rag/buildContextPrompt", {"query": "invoice total"})
    assert prompt.warnings == [warning]


async def test_the_pipeline_setting_applies_without_a_reindex(client: LanguageClient) -> None:
    before = await request(client, "rag/status")
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"ragls": {"pipeline": "seed"}}),
    )

    async def switched() -> bool:
        return (await request(client, "rag/status")).pipeline == "seed"

    await eventually(switched, "the seed pipeline to be used")
    after = await request(client, "rag/status")
    assert after.generation == before.generation  # no file was read again
    assert after.bm25Documents == after.chunkCount  # BM25 built from the stored chunks
    answer = await request(client, "rag/search", {"query": "invoice total", "topK": 1})
    assert answer.results[0].metadata.file == "src/billing.py"

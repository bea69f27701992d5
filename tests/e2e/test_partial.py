"""The real daemon answers from the first second of a cold index: partial generations, flagged
``partial`` with their progress, then the whole one (protocol.md §4 rag/search; SPEC §8, §11).

The daemon is ``tests.e2e.gated_serve``: ``ragls serve`` whose cold run commits partial
generations after 1, 2, 4, ..., 64 files (work done, not time) and then waits, 100 files in,
until the test releases it, so the partial answers are seen without racing the run.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import eventually, initialize_params, make_client, request
from tests.e2e.gated_serve import GATE_FILE
from tests.ingest.trees import make_tree

SERVER = [sys.executable, "-m", "tests.e2e.gated_serve", "--log-level", "warning"]
FILES = 300  # past PARALLEL_MIN_FILES: the files are read by worker processes, as in real use


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    files = {
        f"pkg/m{i:03d}.py": f"def helper_{i}(value):\n    return 'marsupial{i:03d}'\n"
        for i in range(FILES)
    }
    return make_tree(tmp_path / "ws", files)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(workspace))
    yield lsp_client
    (workspace.parent / GATE_FILE).touch()  # never leave a run waiting at shutdown
    await lsp_client.shutdown_session()


def updates(client: LanguageClient) -> list[object]:
    return list(client.index_updates)  # type: ignore[attr-defined]


def files_of(answer: object) -> list[str]:
    return [result.metadata.file for result in answer.results]  # type: ignore[attr-defined]


async def test_a_cold_run_answers_partially_then_wholly(
    client: LanguageClient, workspace: Path
) -> None:
    async def partial_of_64() -> bool:
        status = await request(client, "rag/status")
        return bool(status.partial and status.fileCount == 64)

    await eventually(partial_of_64, "the partial generation of the first 64 files")
    assert updates(client) == []  # rag/indexUpdated means a run is done: not sent for these
    first = await request(client, "rag/search", {"query": "marsupial003", "topK": 3})
    assert (first.partial, first.stale, first.generation) == (True, True, 1)
    assert (first.progress.indexedFiles, first.progress.totalFiles) == (64, FILES)
    assert files_of(first)[0] == "pkg/m003.py"
    unread = await request(client, "rag/search", {"query": "marsupial250", "topK": 3})
    assert unread.partial is True and "pkg/m250.py" not in files_of(unread)
    prompt = await request(client, "rag/buildContextPrompt", {"query": "marsupial003"})
    assert prompt.partial is True and prompt.progress.indexedFiles == 64
    assert "<document-id>pkg/m003.py:1-2</document-id>" in prompt.prompt
    status = await request(client, "rag/status")
    assert (status.partial, status.indexing, status.fileCount, status.generation) == (
        True,
        True,
        64,
        1,
    )
    assert status.cache.storedGeneration is None  # a partial generation is never stored

    (workspace.parent / GATE_FILE).touch()

    async def whole() -> bool:
        return bool(updates(client))

    await eventually(whole, "the final generation")
    final = await request(client, "rag/search", {"query": "marsupial250", "topK": 3})
    assert (final.partial, final.progress, final.generation) == (False, None, 1)
    assert files_of(final)[0] == "pkg/m250.py"
    done = await request(client, "rag/status")
    assert (done.partial, done.fileCount) == (False, FILES)
    assert [u.fileCount for u in updates(client)] == [FILES]  # type: ignore[attr-defined]

    async def stored() -> bool:
        status = await request(client, "rag/status")
        return bool(status.cache.storedGeneration == 1)

    await eventually(stored, "the final generation saved")

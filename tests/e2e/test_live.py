"""Live re-indexing, progress, folders, configuration, cancellation (SPEC §9)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import (
    SERVER,
    eventually,
    first_generation,
    initialize_params,
    make_client,
    request,
)
from tests.ingest.trees import make_tree


async def files_matching(client: LanguageClient, query: str) -> set[str]:
    answer = await request(client, "rag/search", {"query": query, "topK": 20})
    return {result.metadata.file for result in answer.results}


async def wait_for_files(client: LanguageClient, query: str, expected: set[str]) -> None:
    async def check() -> bool:
        return await files_matching(client, query) == expected

    await eventually(check, f"search {query!r} to give {sorted(expected)}")


async def test_create_modify_delete_rename_and_atomic_save(
    client: LanguageClient, workspace: Path
) -> None:
    # File names that share no word with the contents: the workspace pipeline searches paths.
    new = workspace / "src" / "animals.py"
    new.write_text("def count():\n    return 'quokka'\n")
    await wait_for_files(client, "quokka", {"src/animals.py"})

    new.write_text("def count():\n    return 'wombat'\n")
    await wait_for_files(client, "wombat", {"src/animals.py"})
    await wait_for_files(client, "quokka", set())

    new.rename(workspace / "docs" / "zoo.py")
    await wait_for_files(client, "wombat", {"docs/zoo.py"})

    (workspace / "docs" / "zoo.py").unlink()
    await wait_for_files(client, "wombat", set())

    # An editor's atomic save: write a temporary file, then rename it over the original.
    temporary = workspace / "src" / ".auth.py.swp~"
    temporary.write_text("def login(user, password):\n    return platypus.check(password)\n")
    os.replace(temporary, workspace / "src" / "auth.py")
    await wait_for_files(client, "platypus", {"src/auth.py"})


async def test_new_directories_are_watched(client: LanguageClient, workspace: Path) -> None:
    make_tree(workspace, {"pkg/deep/er/mod.py": "def echidna():\n    pass\n"}, old=False)
    await wait_for_files(client, "echidna", {"pkg/deep/er/mod.py"})
    (workspace / "pkg" / "deep" / "er" / "two.py").write_text("def numbat():\n    pass\n")
    await wait_for_files(client, "numbat", {"pkg/deep/er/two.py"})


async def test_ignore_file_changes_are_followed(client: LanguageClient, workspace: Path) -> None:
    (workspace / ".gitignore").write_text("ignored/\nbilling.py\n")
    await wait_for_files(client, "invoice total", set())
    (workspace / ".gitignore").write_text("")
    await wait_for_files(client, "zebra plan", {"ignored/secret_plan.txt"})


async def test_a_checkout_burst_becomes_a_few_runs(client: LanguageClient, workspace: Path) -> None:
    before = (await request(client, "rag/status")).indexRuns
    for i in range(400):
        (workspace / "src" / f"gen{i}.py").write_text(f"def generated_{i}():\n    return 'burst'\n")

    async def all_indexed() -> bool:
        return (await request(client, "rag/status")).fileCount == 403

    await eventually(all_indexed, "all 400 files indexed")
    runs = (await request(client, "rag/status")).indexRuns - before
    assert 1 <= runs <= 6, f"{runs} index runs for one burst"


async def test_ignored_directories_get_no_watches(client: LanguageClient, workspace: Path) -> None:
    for i in range(30):
        (workspace / "node_modules" / f"dep{i}" / "lib").mkdir(parents=True)
        (workspace / "build" / f"out{i}").mkdir(parents=True)
        (workspace / "ignored" / f"sub{i}").mkdir(parents=True)
    (workspace / "src" / "sub").mkdir()

    async def watching_src_sub() -> bool:
        return (await request(client, "rag/status")).watcher.watches == 4

    # root, src, docs, src/sub: nothing below node_modules, build or the ignored directory.
    await eventually(watching_src_sub, "exactly four watches")


async def test_progress_is_begin_reports_end(client: LanguageClient) -> None:
    # The start-up run used a server-created token (the client advertises workDoneProgress).
    [(_token, reports)] = list(client.progress_reports.items())
    kinds = [report.kind for report in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert set(kinds[1:-1]) == {"report"}
    assert reports[-2].message.startswith("Indexed 3/3: ")
    assert reports[-2].percentage == 100
    assert reports[-1].message == "Indexed 3 files, 3 chunks"

    client.progress_reports["mine"] = []
    await request(client, "rag/index", {"force": True, "workDoneToken": "mine"})
    mine = [report.kind for report in client.progress_reports["mine"]]
    assert (mine[0], mine[-1]) == ("begin", "end")
    assert set(mine[1:-1]) == {"report"}


async def test_workspace_folders_added_and_removed(client: LanguageClient, tmp_path: Path) -> None:
    second = make_tree(tmp_path / "second", {"lib.rs": "fn capybara() {}\n"})
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=second.as_uri(), name="second")], removed=[]
            )
        ),
    )

    async def second_indexed() -> bool:
        sessions = (await request(client, "rag/sessions")).sessions
        return any(s.session == second.as_uri() and s.generation == 1 for s in sessions)

    await eventually(second_indexed, "the second folder indexed")
    hits = await request(client, "rag/search", {"query": "capybara", "session": second.as_uri()})
    assert hits.results[0].metadata.file == "lib.rs"
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[types.WorkspaceFolder(uri=second.as_uri(), name="second")]
            )
        ),
    )

    async def second_gone() -> bool:
        sessions = (await request(client, "rag/sessions")).sessions
        return [s.session for s in sessions] == [sessions[0].session] and len(sessions) == 1

    await eventually(second_gone, "the second folder removed")
    with pytest.raises(JsonRpcException, match="unknown session"):
        await request(client, "rag/search", {"query": "capybara", "session": second.as_uri()})


async def test_configuration_change_applies_or_is_refused_whole(
    client: LanguageClient, workspace: Path
) -> None:
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"ragls": {"exclude": ["docs/"]}}),
    )
    await wait_for_files(client, "deploy blue green", set())
    client.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"ragls": {"exclude": [], "debounceMs": -1}}),
    )

    async def refused() -> bool:
        return any("debounceMs" in m.message for m in client.messages)

    await eventually(refused, "the invalid configuration to be reported")
    assert await files_matching(client, "deploy blue green") == set()  # the previous one stayed


async def test_cancelling_a_running_index(client: LanguageClient, workspace: Path) -> None:
    for i in range(600):
        (workspace / "bulk" / f"f{i}.md").parent.mkdir(exist_ok=True)
        (workspace / "bulk" / f"f{i}.md").write_text(f"# Note {i}\n\n" + "words " * 400)
    await request(client, "rag/index", {"ifIdle": False})  # let the watcher settle first
    before = await request(client, "rag/status")
    future = client.protocol.send_request("rag/index", {"force": True}, msg_id="slow-index")

    async def running() -> bool:
        return bool((await request(client, "rag/status")).indexing)

    await eventually(running, "the forced run to start")
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="slow-index"))
    with pytest.raises(JsonRpcException) as raised:
        await asyncio.wait_for(asyncio.wrap_future(future), 30)
    assert raised.value.code == -32800

    async def idle() -> bool:
        return not (await request(client, "rag/status")).indexing

    await eventually(idle, "the cancelled run to stop")
    after = await request(client, "rag/status")
    assert after.fileCount == before.fileCount
    assert await files_matching(client, "invoice total") == {"src/billing.py"}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def capped(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    options = {"limits": {"maxFiles": 3}, "debounceMs": 50, "unknownKey": 1}
    await lsp_client.initialize_session(initialize_params(workspace, options, editor="neovim"))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_invalid_initialization_options_are_reported_and_defaults_used(
    capped: LanguageClient, workspace: Path
) -> None:
    await first_generation(capped)

    async def reported() -> bool:
        return any("unknownKey" in m.message for m in capped.messages)

    await eventually(reported, "the unknown setting to be reported")
    (workspace / "src" / "more.py").write_text("x = 1\n")
    status = await request(capped, "rag/index", {})
    assert status.fileCount == 4  # defaults were used, so maxFiles 3 does not apply


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def tiny(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    options = {"limits": {"maxFiles": 2}, "debounceMs": 50}
    await lsp_client.initialize_session(initialize_params(workspace, options))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_a_source_over_a_cap_is_index_failed_and_reported(tiny: LanguageClient) -> None:
    async def failed() -> bool:
        return (await request(tiny, "rag/status")).lastError is not None

    await eventually(failed, "the start-up run to be refused")
    assert "max_files" in (await request(tiny, "rag/status")).lastError
    assert any("max_files" in m.message for m in tiny.messages)
    with pytest.raises(JsonRpcException) as raised:
        await request(tiny, "rag/index", {})
    assert raised.value.code == -32002
    assert "max_files cap of 2" in raised.value.message


async def test_if_idle_refuses_to_wait_behind_a_running_index(
    client: LanguageClient, workspace: Path
) -> None:
    for i in range(600):
        (workspace / "bulk" / f"f{i}.md").parent.mkdir(exist_ok=True)
        (workspace / "bulk" / f"f{i}.md").write_text(f"# Note {i}\n\n" + "words " * 400)
    refused = None
    for _attempt in range(5):
        running = client.protocol.send_request("rag/index", {"force": True})
        try:
            await request(client, "rag/index", {"ifIdle": True})
        except JsonRpcException as error:
            refused = error
        await asyncio.wait_for(asyncio.wrap_future(running), 60)
        if refused is not None:
            break
    assert refused is not None and refused.code == -32001
    assert "in progress" in refused.message

"""``ragls mcp`` as a real process, driven by the SDK's stdio client (SPEC §12).

The repository is this project's own source (copied, so edits stay in the test's folder). A
first server indexes it and stores the index; an edit made on disk is found through the watcher;
a second server on the same folder answers its first search from the stored index, re-reading
only what changed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

REPOSITORY = Path(__file__).resolve().parents[2]
DEADLINE = 60.0


def server(root: Path, cache: Path) -> Client:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ragls", "mcp", "--root", str(root)],
        env={"RAGLS_CACHE_DIR": str(cache), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=str(root),
    )
    return Client(parameters, read_timeout_seconds=DEADLINE)


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def ready(client: Client) -> dict[str, Any]:
    """The status once the first run has committed (polled, never a fixed sleep)."""
    stop = time.monotonic() + DEADLINE
    while time.monotonic() < stop:
        status = await call(client, "index_status", {})
        if status["generation"] > 0 and not status["indexing"]:
            return status
        await asyncio.sleep(0.1)
    raise AssertionError("the first index run never committed")


async def test_a_real_server_over_stdio_indexes_watches_and_restarts_warm(tmp_path: Path) -> None:
    root, cache = tmp_path / "ragls-src", tmp_path / "cache"
    shutil.copytree(REPOSITORY / "server" / "ragls", root / "ragls")
    async with server(root, cache) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"search_code", "read_span", "build_context", "index_status"} <= names
        status = await ready(client)
        assert status["files"] > 50 and status["last_run"]["files_chunked"] == status["files"]
        answer = await call(client, "search_code", {"query": "reciprocal rank fusion", "top_k": 5})
        assert any(hit["path"] == "ragls/core/fusion.py" for hit in answer["results"])
        (root / "ragls" / "core" / "quokka.py").write_text(
            "def quokka_grooming_schedule(day):\n    return day\n"
        )
        stop = time.monotonic() + DEADLINE
        while True:
            found = await call(client, "search_code", {"query": "quokka grooming", "top_k": 1})
            if found["results"] and found["results"][0]["path"] == "ragls/core/quokka.py":
                break
            assert time.monotonic() < stop, "the edited file was never found"
            await asyncio.sleep(0.1)
    (root / "ragls" / "core" / "quokka.py").write_text("def quokka_nap():\n    pass\n")
    async with server(root, cache) as client:
        status = await ready(client)
        assert status["cache"]["loaded_generation"] is not None
        assert status["last_run"]["files_chunked"] == 1  # only the file edited while it was down
        found = await call(client, "search_code", {"query": "quokka nap", "top_k": 1})
        assert found["results"][0]["path"] == "ragls/core/quokka.py"

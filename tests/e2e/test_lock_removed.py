"""The writer lock survives ``rm -rf`` of the cache under a running daemon (SPEC §11): the
daemon takes its lock again when nobody else has, and steps down to reading, saying why, when a
second process took the new lock; never do two processes both write and prune one folder."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_restart import call, stop
from tests.e2e.test_transport import RawClient, initialize
from tests.ingest.trees import make_tree

DEADLINE = 30.0
_ids = itertools.count(100)


def status(client: RawClient) -> dict[str, Any]:
    result: dict[str, Any] = call(client, next(_ids), "rag/status", {})
    return result


def cache_of(client: RawClient, state: str, generation: int | None = None) -> dict[str, Any]:
    """The daemon's ``cache`` once it is in ``state`` (with at least ``generation`` stored)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        found = status(client)
        cache: dict[str, Any] = found["cache"]
        stored = cache["storedGeneration"]
        if cache["state"] == state and (generation is None or (stored or 0) >= generation):
            return found
        assert time.monotonic() < deadline, f"timed out waiting for cache state {state}: {cache}"
        time.sleep(0.1)


def generations(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir() if entry.name.startswith(("g", "tmp-")))


def current(folder: Path) -> str:
    name: str = json.loads((folder / "CURRENT").read_text())["generation"]
    return name


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(folder))
    return folder


def test_a_second_daemon_after_rm_rf_is_the_only_writer(tmp_path: Path, cache: Path) -> None:
    root = make_tree(tmp_path / "ws", {"app.py": "def start_server(port):\n    return port\n"})
    first = RawClient()
    initialize(first, root)
    folder = Path(cache_of(first, "saved")["cache"]["path"])
    shutil.rmtree(cache)  # under the running daemon
    second = RawClient()
    try:
        initialize(second, root)
        assert cache_of(second, "saved")["cache"]["writer"] is True
        shown = status(first)["cache"]
        assert shown["writer"] is False and shown["state"] == "reader"
        assert shown["ownerPid"] == second.process.pid
        assert "writer.lock was removed or replaced" in shown["detail"]

        (root / "app.py").write_text("def open_listener(port):\n    return port\n")
        stored = status(second)["cache"]["storedGeneration"]
        after = cache_of(second, "saved", stored + 1)["cache"]
        still = status(first)
        assert still["cache"]["writer"] is False and still["cache"]["state"] == "reader"
        assert still["generation"] >= 2  # the first re-indexed the edit too, in memory
        # One writer's files only: its published generation, nothing pruned under it.
        assert generations(folder) == [current(folder)]
        assert after["storedGeneration"] == int(current(folder)[1:7])
        answer = call(second, next(_ids), "rag/search", {"query": "open listener", "topK": 1})
        assert answer["results"][0]["metadata"]["file"] == "app.py"
    finally:
        stop(second)
        stop(first)
    assert first.process.stderr is not None
    assert b"writer.lock was removed or replaced" in first.process.stderr.read()


def test_a_daemon_takes_its_lock_again_after_rm_rf(tmp_path: Path, cache: Path) -> None:
    root = make_tree(tmp_path / "ws", {"app.py": "def start_server(port):\n    return port\n"})
    daemon = RawClient()
    initialize(daemon, root)
    try:
        folder = Path(cache_of(daemon, "saved")["cache"]["path"])
        shutil.rmtree(cache)
        (root / "app.py").write_text("def open_listener(port):\n    return port\n")
        shown = cache_of(daemon, "saved", 2)["cache"]
        assert shown["writer"] is True and shown["detail"] == ""
        assert generations(folder) == [current(folder)]
        # Another process is now a reader of what the daemon wrote, not a second writer.
        other = subprocess.run(
            [sys.executable, "-m", "ragls", "index", str(root)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert other.returncode == 0, other.stderr
        assert re.search(rf"cache +reader: {re.escape(str(folder))}", other.stderr)
        assert f"process {daemon.process.pid} owns" in other.stderr
        assert generations(folder) == [current(folder)]
    finally:
        stop(daemon)

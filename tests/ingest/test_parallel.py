"""Worker processes of big index runs (ragls.ingest.parallel)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.parallel import PARALLEL_MIN_FILES, WORKER_NICENESS, process_all
from tests.ingest.trees import make_tree

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def children_niceness() -> list[int]:
    """The niceness of each live child process of this one, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":  # ppid, state
            found.append(int(fields[16]))  # nice: field 19 of stat, 17th after the name
    return found


def niceness_of_workers(tmp_path: Path, niceness: int | None) -> list[int]:
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(PARALLEL_MIN_FILES)}
    root = make_tree(tmp_path / "tree", files)
    ingestion = FileIngestionService()
    config = KnowledgeSourceConfig(root.resolve())
    work = [(candidate, None) for candidate in ingestion.discover(config).candidates]
    extra = {} if niceness is None else {"niceness": niceness}
    results = process_all(ingestion, config, work, 2, **extra)
    try:
        next(results)  # a worker answered its first batch; both are running
        expected = os.nice(0) if niceness == 0 else max(os.nice(0), WORKER_NICENESS)
        deadline = time.monotonic() + 30  # the other one may still be starting its interpreter
        while (found := children_niceness()) != [expected] * 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        return found
    finally:
        results.close()


def test_workers_run_at_a_lower_priority_by_default(tmp_path: Path) -> None:
    ours = os.nice(0)
    assert niceness_of_workers(tmp_path, None) == [max(ours, WORKER_NICENESS)] * 2


def test_workers_keep_the_callers_priority_when_told(tmp_path: Path) -> None:
    ours = os.nice(0)
    assert niceness_of_workers(tmp_path, 0) == [ours, ours]


def test_a_worker_whose_parent_is_gone_or_interrupted_leaves_quietly(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group and the parent reports it; a client leaving a
    first index closes the pipes: workers printed a KeyboardInterrupt or BrokenPipeError
    traceback on the terminal each time."""
    import signal
    import subprocess
    import sys

    from ragls.ingest.config import KnowledgeSourceConfig
    from ragls.ingest.limits import Limits
    from ragls.ingest.parallel import _WORKER_MAIN
    from ragls.ingest.worker import read_message, write_message

    command = [sys.executable, "-c", _WORKER_MAIN.format(niceness=0)]
    setup = (Limits.defaults(), (200, 8_000, 1_000), KnowledgeSourceConfig(tmp_path))
    for interrupt in (True, False):
        worker = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert worker.stdin is not None and worker.stdout is not None
        write_message(worker.stdin, setup)
        write_message(worker.stdin, [])
        assert read_message(worker.stdout) == []  # serving
        if interrupt:
            worker.send_signal(signal.SIGINT)
        worker.stdout.close()  # the parent is gone: its answer has nowhere to go
        write_message(worker.stdin, [])
        worker.stdin.close()
        assert worker.wait(timeout=30) == 0
        assert worker.stderr is not None
        assert b"Traceback" not in worker.stderr.read(), interrupt

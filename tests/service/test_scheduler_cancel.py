"""A session's index thread: a requester that cancels its run never breaks it, and it counts
the symbol names of each run before a query has to."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragls.errors import IndexCancelledError
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.service.session.scheduler import IndexJob, SessionIndexer
from tests.ingest.trees import make_tree

ARGUMENTS = {"include": (), "exclude": (), "default_skips": frozenset({"build"})}


def test_a_run_cancelled_while_it_runs_leaves_the_session_indexable(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(20)})
    service = RagService(pipeline=WORKSPACE)
    entered, release = threading.Event(), threading.Event()

    def slow(progress: object) -> None:  # holds the run between two files
        entered.set()
        release.wait(10)

    scheduler = SessionIndexer("s", service, lambda: ARGUMENTS, lambda *a: None)  # type: ignore[arg-type,return-value]
    job = IndexJob(path=str(root), progress=slow)  # type: ignore[arg-type]
    scheduler.submit(job)
    assert entered.wait(10)
    assert not job.future.cancel()  # running: what asyncio.wrap_future's cancel now gets
    job.cancel.set()  # what the daemon does on $/cancelRequest
    release.set()
    with pytest.raises(IndexCancelledError):
        job.future.result(10)
    assert service.generation == 0  # the cancelled run committed nothing

    cancelled_early = IndexJob(path=str(root))
    assert cancelled_early.future.cancel()  # cancelled before the thread took it
    scheduler.submit(cancelled_early)
    after = IndexJob(path=str(root))
    scheduler.submit(after)
    assert after.future.result(10).file_count == 20
    assert not scheduler.pending
    scheduler.stop()


def test_a_sessions_run_counts_its_symbol_names_before_any_query_asks(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {f"m{i}.py": f"def f{i}():\n    return g{i}()\n" for i in range(20)})
    direct = RagService(pipeline=WORKSPACE)
    direct.index_directory(root)
    assert direct.symbol_index.uncounted == 20  # a run alone leaves them to the first query
    service = RagService(pipeline=WORKSPACE)
    scheduler = SessionIndexer("s", service, lambda: ARGUMENTS, lambda *a: None)  # type: ignore[arg-type,return-value]
    job = IndexJob(path=str(root))
    scheduler.submit(job)
    assert job.future.result(10).file_count == 20
    scheduler.stop()
    assert service.symbol_index.uncounted == 0  # the session's thread counted them
    assert service.symbol_index.search("f7", 5)[0].path == "m7.py"

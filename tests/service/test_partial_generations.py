"""Searches during a cold run answer from its partial generations, flagged, and only the final
generation is stored (RagService; ragls.ingest.partial; SPEC §8, §11)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragls.errors import IndexCancelledError
from ragls.ingest.partial import PartialCommits
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.service.status import IndexStatus
from ragls.store.embedded import EmbeddedStore
from tests.conftest import FakeClock
from tests.ingest.trees import make_tree

EVERY_FILE = PartialCommits(seconds=0.0, min_files=1, clock=FakeClock())
FILES = 40


def project(root: Path) -> Path:
    # m00 ... m39 sort in the order they are read; each holds a word of its own.
    files = {
        f"pkg/m{i:02d}.py": f"def helper_{i}(value):\n    return 'marsupial{i:02d}'\n"
        for i in range(FILES)
    }
    return make_tree(root, files)


def found(service: RagService, number: int) -> bool:
    return any(
        r.metadata.get("file") == f"pkg/m{number:02d}.py"
        for r in service.search(f"marsupial{number:02d}", 5)
    )


def test_searches_during_a_cold_run_answer_from_its_partial_generations(tmp_path: Path) -> None:
    root = project(tmp_path / "ws")
    service = RagService(pipeline=WORKSPACE, partial_commits=EVERY_FILE)
    seen: list[tuple[IndexStatus, bool, bool]] = []

    def partial(status: IndexStatus) -> None:
        seen.append((status, found(service, 0), found(service, FILES - 1)))

    final = service.index_directory(root, on_partial=partial)
    done = [status.partial.indexed_files for status, _, _ in seen if status.partial]
    assert done == [1, 2, 4, 8, 16]  # none past half the run
    for status, first, last in seen:
        assert status.partial is not None and status.partial.total_files == FILES
        assert status.generation == 1 and status.indexing  # the number the run will commit
        assert status.file_count == status.partial.indexed_files
        assert first and not last  # the files read so far, and only those
    assert final.partial is None and final.generation == 1 and final.file_count == FILES
    assert service.partial is None and found(service, FILES - 1)


def test_a_cancelled_cold_run_leaves_the_empty_generation_it_started_from(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "ws")
    service = RagService(pipeline=WORKSPACE, partial_commits=EVERY_FILE)
    seen: list[IndexStatus] = []
    with pytest.raises(IndexCancelledError):
        service.index_directory(root, on_partial=seen.append, cancelled=lambda: len(seen) >= 4)
    status = service.get_status()
    assert (status.generation, status.file_count, status.partial) == (0, 0, None)
    assert status.last_error is not None and "cancelled" in status.last_error
    assert not found(service, 0) and service.search("helper", 5) == []


def test_a_library_service_without_partial_commits_commits_once(tmp_path: Path) -> None:
    service = RagService(pipeline=WORKSPACE, partial_commits=None)
    seen: list[IndexStatus] = []
    service.index_directory(project(tmp_path / "ws"), on_partial=seen.append)
    assert seen == []


def test_a_save_asked_for_during_a_cold_run_stores_the_final_generation(tmp_path: Path) -> None:
    root, cache = project(tmp_path / "ws"), tmp_path / "cache"
    persistence = Persistence(EmbeddedStore(root, cache), quiet_seconds=0.0)
    service = RagService(pipeline=WORKSPACE, persistence=persistence, partial_commits=EVERY_FILE)
    seen: list[IndexStatus] = []

    def partial(status: IndexStatus) -> None:
        seen.append(status)
        if len(seen) == 1:
            service.add_document("a note added while the first index runs")  # wants a save

    service.index_directory(root, on_partial=partial)
    deadline = time.monotonic() + 10
    while persistence.saves == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    persistence.close()
    assert persistence.saves >= 1 and len(seen) == 5
    restarted = RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))
    assert restarted.warm_start(root)
    status = restarted.get_status()
    assert (status.generation, status.file_count, status.partial) == (1, FILES, None)

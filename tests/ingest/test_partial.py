"""A cold run's partial generations: their cadence, each a whole generation, and withdrawn when
the run fails (ragls.ingest.partial; SPEC §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.errors import IndexCancelledError, IndexRejectedError
from ragls.ingest.indexer import FileIndexer, PartialReport
from ragls.ingest.limits import Limits
from ragls.ingest.partial import PartialCommits
from tests.conftest import FakeClock
from tests.ingest.test_indexer import Stores, run, tree

# Time never stands in the way: these commits follow the work done alone.
EVERY_FILE = PartialCommits(seconds=0.0, min_files=1, clock=FakeClock())


def commits_over(policy: PartialCommits, files: int) -> list[int]:
    """The file counts at which a run of ``files`` files commits partially."""
    cadence, done = policy.start(files), []
    for position in range(1, files + 1):
        if cadence.due(position):
            cadence.committed(position)
            done.append(position)
    return done


def test_each_partial_commit_covers_at_least_twice_the_files_of_the_one_before() -> None:
    assert commits_over(EVERY_FILE, 10_000) == [2**k for k in range(13)]  # up to 4,096


def test_none_is_made_past_half_of_the_run() -> None:
    assert commits_over(EVERY_FILE, 100) == [1, 2, 4, 8, 16, 32]
    whole = PartialCommits(seconds=0.0, min_files=1, max_share=1.0, clock=FakeClock())
    assert commits_over(whole, 100) == [1, 2, 4, 8, 16, 32, 64]


def test_growth_and_a_floor_of_files_set_the_batch_size() -> None:
    policy = PartialCommits(seconds=0.0, growth=0.0, min_files=10, clock=FakeClock())
    assert commits_over(policy, 100) == [10, 20, 30, 40, 50]


def test_the_first_partial_commit_waits_for_a_floor_of_files() -> None:
    assert commits_over(PartialCommits(seconds=0.0, clock=FakeClock()), 100) == [16, 32]


def test_no_partial_commit_before_its_seconds_have_passed(clock: FakeClock) -> None:
    cadence = PartialCommits(seconds=1.0, clock=clock).start(2000)
    assert not cadence.due(500)  # plenty of work, no time
    clock.advance(1.0)
    assert cadence.due(500)
    cadence.committed(500)
    clock.advance(5.0)
    assert not cadence.due(999)  # time enough, but fewer new files than committed ones
    assert cadence.due(1000)


def test_a_cold_run_commits_whole_partial_generations_then_the_rest(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer(workers=1)
    root = tree(tmp_path, 20)
    seen: list[tuple[int, set[str]]] = []

    def partial(report: PartialReport) -> None:
        # Every stream holds exactly the files read so far (Stores.ids checks they agree).
        assert len(stores.ids()) == report.chunk_count
        seen.append((report.files_done, stores.files()))

    report = run(indexer, root, stores, partial=EVERY_FILE, on_partial=partial)
    assert [done for done, _ in seen] == [1, 2, 4, 8]  # none past half the run
    for done, files in seen:
        assert files == {f"src/m{i}.py" for i in sorted(range(20), key=str)[:done]}
    assert report.file_count == 20 and report.chunks_added == len(stores.ids()) == 20
    assert stores.files() == {f"src/m{i}.py" for i in range(20)}


def test_a_run_with_a_generation_to_answer_from_commits_once(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer(workers=1)
    root = tree(tmp_path, 20)
    run(indexer, root, stores)
    indexer.clear_hashes()
    seen: list[PartialReport] = []
    report = run(indexer, root, stores, partial=EVERY_FILE, on_partial=seen.append)
    assert seen == [] and report.files_read == 20


def test_a_cancelled_cold_run_withdraws_its_partial_generations(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer(workers=1)
    root = tree(tmp_path, 20)
    seen: list[PartialReport] = []
    with pytest.raises(IndexCancelledError):
        run(
            indexer,
            root,
            stores,
            partial=EVERY_FILE,
            on_partial=seen.append,
            cancelled=lambda: len(seen) >= 3,
        )
    assert len(seen) == 3 and stores.ids() == set()
    assert indexer.indexed_files() == []
    report = run(indexer, root, stores, partial=EVERY_FILE)  # cold again, and whole
    assert report.file_count == 20 and len(stores.ids()) == 20


def test_a_cold_run_over_the_chunk_cap_is_refused_without_reading_the_rest(
    tmp_path: Path,
) -> None:
    stores, indexer = Stores(), FileIndexer(Limits(max_chunks=5), workers=1)
    ticks: list[int] = []
    with pytest.raises(IndexRejectedError, match="max_chunks"):
        run(
            indexer,
            tree(tmp_path, 20),
            stores,
            partial=EVERY_FILE,
            progress=lambda done, total, current: ticks.append(done),
        )
    assert stores.ids() == set() and max(ticks) == 8  # refused at the partial commit at 8

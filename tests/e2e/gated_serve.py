"""``ragls serve`` whose cold runs stop part-way until the test lets them go on (test code only).

Run as ``python -m tests.e2e.gated_serve [serve options]``. Two hooks make a cold run's partial
generations observable without racing the run:

* the partial-commit cadence takes no time into account (``seconds=0``), so a cold run commits
  partial generations after 1, 2, 4, ..., 64 files: work done, not time;
* after ``GATE_AFTER`` files a run waits until a file named ``release`` exists beside the
  workspace folder (the test creates it once it has asked its questions).

Nothing here changes what the daemon does otherwise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Generator, Sequence
from typing import Any

from ragls.cli import main
from ragls.ingest import indexer
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.partial import PartialCommits
from ragls.service.session import workspace

GATE_AFTER = 100
GATE_FILE = "release"
GATE_DEADLINE_SECONDS = 60.0

_process_all = indexer.process_all


def gated(
    ingestion: Any, config: KnowledgeSourceConfig, work: Sequence[Any], *args: Any
) -> Generator[Any, None, None]:
    gate = config.path.parent / GATE_FILE
    results = _process_all(ingestion, config, work, *args)
    try:
        for position, result in enumerate(results, start=1):
            if position == GATE_AFTER + 1:
                stop = time.monotonic() + GATE_DEADLINE_SECONDS
                while not gate.exists() and time.monotonic() < stop:
                    time.sleep(0.02)
            yield result
    finally:
        results.close()


# The cadence of the partial commits: after 1, 2, 4, ... files, whatever the time.
BY_WORK_DONE = PartialCommits(seconds=0.0, min_files=1)


def install() -> None:
    """Both hooks, in this process (the daemon's; tests in process patch ``gated`` alone)."""
    indexer.process_all = gated  # type: ignore[assignment]
    workspace.DEFAULT_PARTIAL_COMMITS = BY_WORK_DONE


if __name__ == "__main__":
    install()
    sys.exit(main(["serve", *sys.argv[1:]]))

"""When a cold index run commits what it has read so far: partial generations (SPEC §8, §11).

A cold run (nothing committed to answer from: a first index with no usable stored generation)
would otherwise leave searches answering nothing for as long as it reads (11 s on django,
minutes on a large repository). Instead it commits *partial generations* as it goes: each one is
a whole, consistent generation (the knowledge base and every stream swapped together by
``FileIndexer._commit``, exactly as the final commit), holding every file read so far, and
flagged partial (with how many files it covers of how many) until the run's final commit.

The cadence, and why: a partial commit is due when **both** at least ``seconds`` (1 s) have
passed since the run started or since the previous partial commit, **and** the files read since
that commit number at least ``growth`` (1.0) times the files already committed (and at least
``min_files``). So the first partial generation goes live about a second into the run, and each
later one covers at least twice the files of the one before: a run of N files commits at most
about log2(N) partial generations. The cost is what bounds it: a commit of a large batch merges
the postings segments of every stream (``ragls.core.postings``), work proportional to what they
hold already, so doubling keeps the sum of those merges below twice the final one (measured in
docs/benchmarks.md). A fixed "every N files" or "every few seconds" would make that sum grow
with the square of the repository's size.

Only cold runs commit partially; a run with a committed generation to answer from (a warm start,
a re-index, a changed-paths run) keeps its single commit, so answers never go from complete to
partial.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PartialCommits:
    """The cadence of a cold run's partial commits (see the module docstring)."""

    seconds: float = 1.0
    growth: float = 1.0
    min_files: int = 1
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def start(self) -> Cadence:
        """The cadence of one run, its clock started now."""
        return Cadence(self)


class Cadence:
    """One run's partial-commit schedule: ask :meth:`due` after each file, tell
    :meth:`committed` after each partial commit."""

    def __init__(self, policy: PartialCommits) -> None:
        self._policy = policy
        self._since = policy.clock()
        self.committed_files = 0  # files (read, whatever their outcome) the last commit covers
        self.commits = 0

    def due(self, files_done: int) -> bool:
        """Whether the run, ``files_done`` files in, should commit what it has read now."""
        policy = self._policy
        fresh = files_done - self.committed_files
        return (
            fresh >= max(1, policy.min_files)
            and fresh >= policy.growth * self.committed_files
            and policy.clock() - self._since >= policy.seconds
        )

    def committed(self, files_done: int) -> None:
        self.committed_files = files_done
        self.commits += 1
        self._since = self._policy.clock()


# What a service uses unless told otherwise.
DEFAULT_PARTIAL_COMMITS = PartialCommits()

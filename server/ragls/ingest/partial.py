"""When a cold index run commits what it has read so far: partial generations (SPEC §8, §11).

A cold run (nothing committed to answer from: a first index with no usable stored generation)
would otherwise leave searches answering nothing for as long as it reads (11 s on django,
minutes on a large repository). Instead it commits *partial generations* as it goes: each one is
a whole, consistent generation (the knowledge base and every stream swapped together by
``FileIndexer._commit``, exactly as the final commit), holding every file read so far, and
flagged partial (with how many files it covers of how many) until the run's final commit.

The cadence, and why: a partial commit is due when **both** at least ``seconds`` (1 s) have
passed since the run started or since the previous partial commit, **and** the files read since
that commit number at least ``growth`` (1.0) times the files already committed and at least
``min_files`` (16). So the first partial generation goes live about a second into the run (the
floor keeps it from holding the one file a run has read when its worker processes have just
started, as measured), and each later one covers at least twice the files of the one before: a
run of N files commits at most about log2(N / 16) partial generations. None is made past
``max_share`` (half) of the run's files: the final commit is then no further away than the run
has come, and the partial commit it saves would be the largest and most expensive (measured: on
a loaded two-core machine the one at three quarters of the standard library cost more than all
the others together). The cost is what bounds
it: a commit costs about what its documents cost to tokenize into every stream (work the final
commit would do anyway), plus, for a large batch, a merge of the postings segments proportional
to what the stores hold already (``ragls.core.postings``); doubling keeps the sum of those
merges below about twice the final one, where a fixed "every N files" or "every few seconds"
would make it grow with the square of the repository's size. What it costs on the standard
library: docs/benchmarks.md, "Partial generations".

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
    min_files: int = 16
    max_share: float = 0.5
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def start(self, total_files: int) -> Cadence:
        """The cadence of one run of ``total_files`` files, its clock started now."""
        return Cadence(self, total_files)


class Cadence:
    """One run's partial-commit schedule: ask :meth:`due` after each file, tell
    :meth:`committed` after each partial commit."""

    def __init__(self, policy: PartialCommits, total_files: int) -> None:
        self._policy = policy
        self._total = total_files
        self._since = policy.clock()
        self.committed_files = 0  # files (read, whatever their outcome) the last commit covers
        self.commits = 0

    def due(self, files_done: int) -> bool:
        """Whether the run, ``files_done`` files in, should commit what it has read now."""
        policy = self._policy
        fresh = files_done - self.committed_files
        return (
            files_done <= policy.max_share * self._total
            and fresh >= max(1, policy.min_files)
            and fresh >= policy.growth * self.committed_files
            and policy.clock() - self._since >= policy.seconds
        )

    def committed(self, files_done: int) -> None:
        self.committed_files = files_done
        self.commits += 1
        self._since = self._policy.clock()


# What a service uses unless told otherwise.
DEFAULT_PARTIAL_COMMITS = PartialCommits()

"""The L2 norms of the knowledge base's TF-IDF document vectors, kept up to date incrementally.

A norm depends on every idf of its document's terms, and every idf depends on the corpus size
N, so recomputing all norms after each change would cost a pass over every posting (seconds at a
few hundred thousand chunks) on the first search after every save. Instead, with
idf(t) = ln(1 + N) + 1 - l(t) and l(t) = ln(1 + df(t)) (SPEC §4), each document keeps three sums
over its terms (w = tf weight):

    S0 = sum w^2,   S1 = sum w^2 l(t),   S2 = sum w^2 l(t)^2,
    norm^2 = A^2 S0 - 2 A S1 + S2   with A = ln(1 + N) + 1.

A change of N costs one vectorised pass over the documents; a change of df(t) costs a pass over
t's postings only, once per search however many commits changed it, and an edit that leaves a
term's document frequency as it was (the usual save) costs nothing for that term. The sums are
rebuilt from scratch after a merge renumbers the slots, after a large change, or when asked, so
rounding never accumulates for long.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ragls.core.postings import FloatArray, InvertedIndex, ValueArray

# An incremental update touching more than this share of all postings is done as a rebuild.
REBUILD_SHARE = 0.25


class CosineNorms:
    """Per-slot norm sums for one :class:`InvertedIndex` (callers hold the store's lock)."""

    def __init__(self) -> None:
        self._layout: int | None = None
        self._sums = np.zeros((3, 0))
        self._inverse: tuple[int, FloatArray] | None = None
        self._baseline: dict[str, int] = {}  # df the sums are exact for, of terms changed since
        self.rebuilds = 0  # whole-corpus passes so far (tests pin when they happen)
        self.postings_updated = 0  # postings touched by incremental updates so far

    def invalidate(self) -> None:
        self._layout = None
        self._inverse = None
        self._baseline = {}

    def current(self, index: InvertedIndex) -> bool:
        """Whether the sums describe ``index`` as it was before the change being applied."""
        return self._layout == index.layout

    def apply(
        self,
        index: InvertedIndex,
        frequencies_before: Mapping[str, int],
        added: list[tuple[int, list[str], ValueArray]],
    ) -> None:
        """Record a change: ``frequencies_before`` holds the document frequency, before the
        change, of every term it touched; ``added`` the (slot, terms, stored weights) of the
        documents it indexed. The other documents' sums are brought up to date on the next
        :meth:`inverse`, once for all the changes since the last one (a run of single additions
        touching a common term pays for its postings once, not once per addition)."""
        if self._layout != index.layout:
            self.invalidate()
            return
        baseline = self._baseline
        for term, before in frequencies_before.items():
            baseline.setdefault(term, before)  # the frequency the sums were exact for
        self._grow(index.slot_count)
        s0, s1, s2 = self._sums
        for slot, terms, weights in added:
            squares = np.square(weights, dtype=np.float64)
            logs = np.log1p(np.fromiter((baseline[t] for t in terms), np.float64))
            s0[slot] = squares.sum()
            s1[slot] = (squares * logs).sum()
            s2[slot] = (squares * logs * logs).sum()
        self._inverse = None

    def inverse(self, index: InvertedIndex) -> FloatArray:
        """1 / norm of every slot (0 where a document has no terms)."""
        if self._layout != index.layout:
            self._rebuild(index)
        elif self._baseline:
            self._catch_up(index)
        if self._inverse is None or self._inverse[0] != index.version:
            a = math.log1p(len(index)) + 1.0
            s0, s1, s2 = self._sums[:, : index.slot_count]
            squared = np.maximum(a * a * s0 - 2.0 * a * s1 + s2, 0.0)
            norms = np.sqrt(squared)
            with np.errstate(divide="ignore"):
                inverse = np.where(norms > 0.0, 1.0 / norms, 0.0)
            self._inverse = (index.version, inverse)
        return self._inverse[1]

    def _catch_up(self, index: InvertedIndex) -> None:
        """Correct the sums for every term whose document frequency changed since they were
        exact: a pass over those terms' postings, or a rebuild if that is most of them."""
        changed = {
            term: before
            for term, before in self._baseline.items()
            if index.document_frequency(term) != before
        }
        self._baseline = {}
        touched = sum(len(slots) for term in changed for slots, _ in index.parts(term))
        if touched > REBUILD_SHARE * max(1, index.posting_count):
            self._rebuild(index)
            return
        _, s1, s2 = self._sums
        for term, before in changed.items():
            old, new = math.log1p(before), math.log1p(index.document_frequency(term))
            for slots, values in index.parts(term):
                squares = np.square(values, dtype=np.float64)
                s1[slots] += squares * (new - old)
                s2[slots] += squares * (new * new - old * old)
                self.postings_updated += len(slots)
        self._inverse = None

    def _rebuild(self, index: InvertedIndex) -> None:
        slots, values, terms = index.all_postings()
        logs = np.log1p(index.frequencies().astype(np.float64))[terms]
        squares = np.square(values, dtype=np.float64)
        size = index.slot_count
        self._sums = np.stack(
            [
                np.bincount(slots, weights=squares, minlength=size),
                np.bincount(slots, weights=squares * logs, minlength=size),
                np.bincount(slots, weights=squares * logs * logs, minlength=size),
            ]
        )
        self._layout = index.layout
        self._inverse = None
        self._baseline = {}
        self.rebuilds += 1

    def _grow(self, size: int) -> None:
        if self._sums.shape[1] < size:
            grown = np.zeros((3, max(size, 2 * self._sums.shape[1])))
            grown[:, : self._sums.shape[1]] = self._sums
            self._sums = grown

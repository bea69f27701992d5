"""Exact top-k over term postings with MaxScore pruning, shared by BM25 and TF-IDF.

A document's score is a sum of per-term contributions, each at most that term's ``bound``. The
terms are scored rarest first (rare terms carry the high bounds and the short postings). Before
a term whose postings are long, the k-th best partial score so far is a threshold ``theta``: if
the bounds of all the terms still to score sum to less than ``theta``, a document none of the
scored terms matched cannot reach the top k, nor tie with it, so the remaining terms are scored
only for the candidates that still could (a binary search of each candidate in the term's
ascending slots) instead of over their whole postings. The result is exactly the unpruned top k:
the candidates' scores are summed in the same term order either way, and the bounds carry a
safety margin against rounding. This is what keeps a query's cost off the common terms'
postings (``self``, ``return``), which grow with the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ragls.core.postings import FloatArray, InvertedIndex, Part, SlotArray, ValueArray, best_of

IntArray = npt.NDArray[np.int64]

# Bounds are inflated by this factor, so float rounding can never make a pruned document win.
BOUND_MARGIN = 1.0 + 1e-6
# A threshold check costs a pass over the score array; it is only worth it before a term whose
# postings are at least this long (or a sixteenth of the slots).
CHECK_MIN_POSTINGS = 20_000
# A query whose postings number at most 1/SPARSE_SHARE of the slots is scored sparsely: sorting
# its slots costs less than an array as long as the index (:func:`_sparse_sum`).
SPARSE_SHARE = 16


@dataclass(slots=True)
class QueryTerm:
    """One query term: its postings, how a posting turns into a contribution, and the largest
    contribution any posting can make."""

    parts: list[Part]
    weigh: Callable[[SlotArray, ValueArray], FloatArray]
    bound: float
    # ``weigh`` of each part, when the caller keeps it (a term asked again while the index is
    # unchanged costs no arithmetic then; the values are the same).
    weighed: list[FloatArray] | None = None
    # Called once ``weighed`` is filled, for a term worth keeping: every part is weighed the
    # first time a search scores the whole postings, never for a term pruning skips (whose
    # candidates alone are weighed: at 16x the standard library, weighing the long postings of
    # every query's common words up front took more than a third of a search).
    on_weighed: Callable[[QueryTerm], None] | None = None
    # How many postings ``parts`` hold (read several times a search; the parts never change).
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = sum(len(slots) for slots, _ in self.parts)

    def contributions(self, number: int) -> FloatArray:
        """Every posting's contribution in part ``number``. A term worth keeping is weighed
        whole, and kept, when a part holding at least half its postings is asked: not when
        the short part of a term whose long part pruning only probes is (a file changed since
        the last merge puts a few postings of ``self`` in a part of their own; weighing the
        whole term for them cost a search at 16x the standard library a third more)."""
        if self.weighed is not None:
            return self.weighed[number]
        slots, values = self.parts[number]
        if self.on_weighed is not None and 2 * len(slots) >= self.size:
            self.weighed = [self.weigh(part, part_values) for part, part_values in self.parts]
            self.on_weighed(self)
            return self.weighed[number]
        return self.weigh(slots, values)


@dataclass(slots=True)
class PruningStats:
    """Postings a search read in full, and candidates looked up by binary search instead."""

    postings_scored: int = 0
    candidates_probed: int = 0
    pruned: bool = False


def top_and_pool(
    terms: list[QueryTerm],
    slot_count: int,
    dead: SlotArray,
    top_k: int,
    stats: PruningStats | None = None,
    pool: int = 0,
) -> tuple[SlotArray, FloatArray, SlotArray]:
    """(slots, scores) of the ``top_k`` best live slots, plus any tied with the last of them, in
    no particular order; and the ``pool`` best (ascending slots) of the documents whose whole
    score the search computed: at least the ``top_k`` best, and as many more as pruning left
    (no more work is done for them)."""
    stats = stats if stats is not None else PruningStats()
    ordered = sorted(terms, key=lambda term: term.size)
    suffix = [0.0] * (len(ordered) + 1)
    for position in range(len(ordered) - 1, -1, -1):
        suffix[position] = suffix[position + 1] + ordered[position].bound * BOUND_MARGIN
    check_from = max(CHECK_MIN_POSTINGS, slot_count // 16)
    if len(ordered) < 2 or ordered[-1].size < check_from:  # the dense path would not prune
        postings = sum(term.size for term in ordered)
        if postings * SPARSE_SHARE <= slot_count:
            found, summed = _sparse_sum(_gathered(ordered, stats), dead)
            return _best_and_pool(found, summed, top_k, pool)
    # The terms before the first threshold check are summed at once, with ``bincount`` (adding
    # in the same order as one term after the other, so to the same floats); the rest one by
    # one, each after a check (the terms are ordered by size: every later one is as long).
    first = next(
        (p for p, term in enumerate(ordered) if p > 0 and term.size >= check_from), len(ordered)
    )
    slots, values = _gathered(ordered[:first], stats)
    scores = _summed(slots, values, slot_count)
    for position in range(first, len(ordered)):
        candidates = _live_nonzero(scores, dead)
        if len(candidates) >= top_k:
            partial = scores[candidates]
            theta = np.partition(partial, len(partial) - top_k)[len(partial) - top_k]
            rest = suffix[position]
            if rest < theta:
                keep = candidates[partial + rest >= theta]
                for remaining in ordered[position:]:
                    _score_candidates(scores, keep, remaining, stats)
                stats.pruned = True
                return _best_and_pool(keep, scores[keep], top_k, pool)
        term = ordered[position]
        for number, (term_slots, _) in enumerate(term.parts):
            scores[term_slots] += term.contributions(number)
            stats.postings_scored += len(term_slots)
    live = _live_nonzero(scores, dead)
    return _best_and_pool(live, scores[live], top_k, pool)


def _best_and_pool(
    slots: SlotArray, scores: FloatArray, top_k: int, pool: int
) -> tuple[SlotArray, FloatArray, SlotArray]:
    """The ``top_k`` best of ``slots`` (ties at the boundary kept) with their scores, and the
    ``pool`` best slots (ascending)."""
    positions = np.arange(len(slots), dtype=np.int32)
    if pool >= top_k:  # the best are among the pool's: one partition of all the slots, not two
        in_pool = best_of(positions, scores, pool)
        best = best_of(in_pool, scores[in_pool], top_k)
        pooled = slots[in_pool]
    else:
        best = best_of(positions, scores, top_k)
        pooled = slots[best_of(positions, scores, pool)] if pool else slots[best]
    return slots[best], scores[best], np.sort(pooled)


def _gathered(
    terms: list[QueryTerm], stats: PruningStats
) -> tuple[list[SlotArray], list[FloatArray]]:
    """Every non-empty part of ``terms``, in order: its slots and its contributions."""
    slots: list[SlotArray] = []
    values: list[FloatArray] = []
    for term in terms:
        for number, (part, _) in enumerate(term.parts):
            if len(part):
                slots.append(part)
                values.append(term.contributions(number))
                stats.postings_scored += len(part)
    return slots, values


def _summed(slots: list[SlotArray], values: list[FloatArray], slot_count: int) -> FloatArray:
    """The contributions ``values`` at ``slots`` summed per slot, in list order, into an array
    of ``slot_count`` (one ``bincount``: a scatter-add per term costs more, measured)."""
    if not slots:
        return np.zeros(slot_count)
    summed: FloatArray = np.bincount(
        np.concatenate(slots),
        np.concatenate(values).astype(np.float64, copy=False),
        slot_count,
    ).astype(np.float64, copy=False)
    return summed


def _sparse_sum(
    gathered: tuple[list[SlotArray], list[FloatArray]], dead: SlotArray
) -> tuple[SlotArray, FloatArray]:
    """The live slots the ``gathered`` postings name (ascending) and their sums, for postings
    much shorter than the index: summed with ``bincount`` over the slots they name (in the same
    order as the dense path's adds, so to the same floats) instead of in an array as long as
    the index, which a search would otherwise allocate and scan whole, however few documents
    match (at 16x the standard library, 880,000 slots a view)."""
    slot_parts, value_parts = gathered
    if not slot_parts:
        return np.zeros(0, np.int32), np.zeros(0)
    found, inverse = np.unique(np.concatenate(slot_parts), return_inverse=True)
    summed: FloatArray = np.bincount(
        inverse, np.concatenate(value_parts).astype(np.float64, copy=False), len(found)
    ).astype(np.float64, copy=False)
    if len(dead):
        summed[np.isin(found, dead)] = 0.0
    live = summed > 0.0
    return found[live].astype(np.int32, copy=False), summed[live]


def _live_nonzero(scores: FloatArray, dead: SlotArray) -> SlotArray:
    if len(dead):
        scores[dead] = 0.0
    return np.flatnonzero(scores > 0.0).astype(np.int32)


def _score_candidates(
    scores: FloatArray, keep: SlotArray, term: QueryTerm, stats: PruningStats
) -> None:
    """Add ``term``'s contributions to the ``keep`` slots (ascending) only."""
    for number, (slots, _) in enumerate(term.parts):
        if not len(slots) or not len(keep):
            continue
        if len(keep) * 8 >= len(slots):  # the search would cost more than the scan
            scores[slots] += term.contributions(number)
            stats.postings_scored += len(slots)
            continue
        where, posting = _shared(keep, slots)
        scores[keep[where]] += _weighed_at(term, number, posting)
        stats.candidates_probed += len(keep)


def ranked_ids(
    terms: list[QueryTerm], index: InvertedIndex, top_k: int, stats: PruningStats
) -> list[tuple[float, str]]:
    """(score, id) of the ``top_k`` best documents of ``index``, best first, ties broken by id:
    the search step every store shares (the caller holds its lock)."""
    slots, scores, _ = ranked_slots(terms, index, top_k, stats)
    return list(zip(scores.tolist(), map(index.id_at, slots.tolist()), strict=True))


def ranked_slots(
    terms: list[QueryTerm],
    index: InvertedIndex,
    top_k: int,
    stats: PruningStats,
    pool: int = 0,
) -> tuple[SlotArray, FloatArray, SlotArray]:
    """(slots, scores) of the ``top_k`` best documents of ``index``, best first, ties broken by
    id, as arrays, and the slots of :func:`top_and_pool`'s pool (the caller holds its lock)."""
    slots, scores, pooled = top_and_pool(
        terms, index.slot_count, index.dead_slots(), top_k, stats, pool
    )
    return (*best_first(slots, scores, index, top_k), pooled)


def best_first(
    slots: SlotArray, scores: FloatArray, index: InvertedIndex, top_k: int
) -> tuple[SlotArray, FloatArray]:
    """The first ``top_k`` of ``slots`` by score, ties broken by id (SPEC §5)."""
    order = order_by_score(scores, None, lambda positions: index.ids_at(slots[positions]))
    order = order[:top_k]
    return slots[order], scores[order]


def top_among(
    terms: list[QueryTerm],
    candidates: SlotArray,
    dead: SlotArray,
    top_k: int,
    stats: PruningStats,
) -> tuple[SlotArray, FloatArray]:
    """:func:`top_and_pool`'s top k over ``candidates`` (ascending slots) only: each term's
    postings are looked up at the candidates, never read whole (terms added in the same
    order)."""
    scores = np.zeros(len(candidates))
    for term in sorted(terms, key=lambda term: term.size):
        _add_among(scores, candidates, term, stats)
    if len(dead):
        scores[np.isin(candidates, dead)] = 0.0
    live = np.flatnonzero(scores > 0.0).astype(np.int32)
    best = best_of(live, scores[live], top_k)
    return candidates[best], scores[best]


def _add_among(
    scores: FloatArray, candidates: SlotArray, term: QueryTerm, stats: PruningStats
) -> None:
    """Add ``term``'s contributions to ``scores`` (one per slot of ``candidates``, ascending),
    looking the shorter of the two up in the longer (binary search)."""
    for number, (slots, _) in enumerate(term.parts):
        if not len(slots) or not len(candidates):
            continue
        where, posting = _shared(candidates, slots)
        scores[where] += _weighed_at(term, number, posting)
        stats.candidates_probed += min(len(slots), len(candidates))


def _shared(candidates: SlotArray, slots: SlotArray) -> tuple[IntArray, IntArray]:
    """Where the slots that ``candidates`` and ``slots`` (both ascending, unique) share sit in
    each, looking the shorter up in the longer (binary search)."""
    if len(slots) < len(candidates):  # the postings looked up among the candidates
        at = np.searchsorted(candidates, slots)
        at[at == len(candidates)] = 0
        found = candidates[at] == slots
        return at[found], np.flatnonzero(found)
    at = np.searchsorted(slots, candidates)  # the candidates looked up in the postings
    at[at == len(slots)] = 0
    found = slots[at] == candidates
    return np.flatnonzero(found), at[found]


def _weighed_at(term: QueryTerm, number: int, posting: IntArray) -> FloatArray:
    """The contributions of part ``number``'s postings at positions ``posting`` (kept ones when
    the term was weighed whole, else weighed now)."""
    if term.weighed is not None:
        return term.weighed[number][posting]
    slots, values = term.parts[number]
    return term.weigh(slots[posting], values[posting])


def order_by_score(
    scores: FloatArray, ranks: IntArray | None, ids_of: Callable[[IntArray], Sequence[str]]
) -> IntArray:
    """Positions of ``scores`` ordered by score descending, then ``ranks`` ascending (if given),
    then id: the order every ranking of ragls uses (SPEC §5), sorted in numpy; only the members
    of runs of equal (score, rank) have their ids looked up (``ids_of`` takes their positions
    and gives their ids, one call for all)."""
    keys = (-scores,) if ranks is None else (ranks, -scores)
    order = np.lexsort(keys).astype(np.int64)
    if len(order) < 2:
        return order
    sorted_scores = scores[order]
    same = sorted_scores[1:] == sorted_scores[:-1]
    if ranks is not None:
        sorted_ranks = ranks[order]
        same &= sorted_ranks[1:] == sorted_ranks[:-1]
    if not same.any():
        return order
    # Every member of a run of ties is given the rank of its id among the members, and the sort
    # is done again with that rank as the last key.
    member = np.zeros(len(order), bool)
    member[:-1] = same  # position i ties with i + 1
    member[1:] |= same
    members = order[member]
    ids = ids_of(members)
    id_rank = np.zeros(len(scores), np.int64)
    id_rank[members[sorted(range(len(ids)), key=ids.__getitem__)]] = np.arange(len(ids))
    last = (id_rank, -scores) if ranks is None else (id_rank, ranks, -scores)
    return np.lexsort(last).astype(np.int64)

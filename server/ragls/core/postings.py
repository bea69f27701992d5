"""The inverted index shared by BM25Stream and the TF-IDF knowledge base, in compact segments.

Every document gets an integer *slot*; every term an integer id (``ragls.core.vocabulary``: the
terms in arrays, not a dict). Postings live in two segments:

* the **base**: one CSR block of numpy arrays ordered by term id, then slot (``int32`` slots and
  ``float32`` values: 8 bytes a posting, against about 100 for a posting in a Python dict; the
  values as ``uint16`` when every one is a whole number below 65,536, as BM25's term counts
  are: 6 bytes a posting), with per-term maxima of the value and minima of the document
  length for score bounds;
* the **delta**: per-term dicts of the postings added since the last merge, so adding or removing
  one document costs its own terms only.

Removing a base document only marks its slot dead and lowers its terms' live document frequency
(the caller passes the terms it indexed: the stores re-analyse the content rather than keep a
forward index of 4 bytes a posting); searches zero dead slots. Slots are not reused until a merge
rebuilds the base from the live postings and renumbers them (``layout`` changes then). A merge
runs when the delta or the dead exceed a quarter of the base (and a floor), so its cost is
amortised over the changes that caused it; :meth:`add_many` with a large batch (a cold index)
builds its segment straight from arrays. Values are what the caller scores: BM25 stores raw term
counts, the knowledge base stores tf weights. Callers hold their own lock.

An index may carry ``tag_count`` integer *tags* per slot (``tags``, -1 until the caller sets
them): per-document values a search reads by slot (the code stream keeps each chunk's file and
symbol there, for the ranking layer), renumbered with the slots by a merge as the lengths are,
so a caller sets them once per document (not persisted: a restore leaves them -1).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ragls.core.batches import EncodedBatch, encode
from ragls.core.index_state import IndexState, StreamState
from ragls.core.vocabulary import Vocabulary

FloatArray = npt.NDArray[np.float64]
SlotArray = npt.NDArray[np.int32]
TagArray = npt.NDArray[np.int32]  # (slots, tag_count)
# A part's values: float32, or uint16 where the base holds whole counts (see the module doc).
# A caller weighing them does its float32 arithmetic with ``dtype=np.float32`` (as
# :func:`scaled`), which gives the same floats from either.
ValueArray = npt.NDArray[np.float32] | npt.NDArray[np.uint16]
Part = tuple[SlotArray, ValueArray]
# A term's postings, live document frequency, largest value and smallest document length.
LookedUp = tuple[list[Part], int, float, float]

# A merge waits until the delta or the dead hold this many postings/slots and a quarter of the
# base: small enough that the delta's dicts stay cheap, large enough that edits rarely pay it.
MERGE_FLOOR_POSTINGS = 200_000
MERGE_FLOOR_SLOTS = 4_096
MERGE_FRACTION = 4
# A batch of this many postings (or more than the base holds) skips the delta and is merged.
BULK_POSTINGS = 50_000


def _identity(values: FloatArray) -> FloatArray:
    return values


def scaled(values: ValueArray, scale: float) -> npt.NDArray[np.float32]:
    """``scale * values`` in float32 arithmetic, as for float32 values, whichever the
    values' type (:data:`ValueArray`)."""
    return np.multiply(values, scale, dtype=np.float32)


def _compact_values(values: ValueArray) -> ValueArray:
    """``values`` as uint16 when each is a whole number from 0 to 65,535 (the same numbers in
    a quarter less memory a posting), else as they are."""
    if values.dtype == np.uint16 or not len(values):
        return values
    if float(values.min()) < 0 or float(values.max()) > _COUNT_MAX:
        return values
    counts = values.astype(np.uint16)
    if not np.array_equal(counts, values):
        return values
    return counts


_COUNT_MAX = float(np.iinfo(np.uint16).max)
_OFFSET_MAX = int(np.iinfo(np.int32).max)


class InvertedIndex:
    """``transform`` maps the values callers add (vectorised) to the values stored."""

    def __init__(
        self, transform: Callable[[FloatArray], FloatArray] = _identity, tag_count: int = 0
    ) -> None:
        self._transform = transform
        self._tag_count = tag_count
        self.tags: TagArray = np.full((16, tag_count), -1, np.int32)
        self._slot_by_id: dict[str, int] = {}
        self._id_by_slot: list[str | None] = []
        self.lengths: FloatArray = np.zeros(16)
        self.total_length = 0.0
        self._term_ids = Vocabulary()  # term -> id, ids given in order of first sight
        self._df = np.zeros(16, np.int32)  # live document frequencies: 4 bytes a term
        # Term id -> the version of the last write that changed the term's postings or count,
        # for the terms changed since the last merge (a merge changes them all: ``layout``).
        self._changed: dict[int, int] = {}
        self._base_offsets: npt.NDArray[np.int32] | npt.NDArray[np.int64] = np.zeros(1, np.int64)
        self._base_slots: SlotArray = np.zeros(0, np.int32)
        self._base_values: ValueArray = np.zeros(0, np.float32)
        self._base_max: npt.NDArray[np.float32] = np.zeros(0, np.float32)
        self._base_min_length: npt.NDArray[np.float32] = np.zeros(0, np.float32)
        self._dead_base: list[int] = []
        self._dead_cache: SlotArray | None = None
        self._delta: dict[int, dict[int, float]] = {}
        self._delta_cache: dict[int, Part] = {}
        self._delta_terms: dict[int, tuple[int, ...]] = {}
        self._delta_postings = 0
        self.version = 0  # changes with every write
        self.layout = 0  # changes when slots are renumbered (a merge)

    # -- sizes ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slot_by_id)

    def __contains__(self, document_id: object) -> bool:
        return document_id in self._slot_by_id

    @property
    def slot_count(self) -> int:
        """One past the highest slot in use: the size score arrays need."""
        return len(self._id_by_slot)

    @property
    def term_count(self) -> int:
        """Terms held by at least one live document."""
        return int(np.count_nonzero(self._df[: len(self._term_ids)]))

    @property
    def posting_count(self) -> int:
        """Postings stored, dead base postings included (until the next merge)."""
        return len(self._base_slots) + self._delta_postings

    @property
    def base_postings(self) -> int:
        return len(self._base_slots)

    @property
    def delta_postings(self) -> int:
        return self._delta_postings

    def nbytes(self) -> int:
        """Bytes held by the numpy arrays (the ids' dict and the vocabulary come on top)."""
        arrays = (
            self.lengths,
            self._df,
            self._base_offsets,
            self._base_slots,
            self._base_values,
            self._base_max,
            self._base_min_length,
        )
        return sum(a.nbytes for a in arrays)

    # -- writing -------------------------------------------------------------------------------

    def add(self, document_id: str, values: Mapping[str, float], length: float) -> int:
        """Index one document into the delta (the caller removed any previous one)."""
        slot = self._new_slot(document_id, length)
        term_ids = self._ids_for(values)
        self._df[term_ids] += 1
        delta, cache, changed = self._delta, self._delta_cache, self._changed
        stored = self._transform(np.fromiter(values.values(), np.float64, len(values)))
        self.version += 1
        version = self.version
        for term_id, value in zip(term_ids, stored.astype(np.float32).tolist(), strict=True):
            postings = delta.get(term_id)
            if postings is None:
                delta[term_id] = {slot: value}
            else:
                postings[slot] = value
            cache.pop(term_id, None)
            changed[term_id] = version
        self._delta_terms[slot] = tuple(term_ids)
        self._delta_postings += len(term_ids)
        self._maybe_merge()
        return slot

    def add_many(self, items: Sequence[tuple[str, Mapping[str, float], float]]) -> None:
        """Index many documents (ids not held); a large batch becomes a segment and is merged."""
        postings = sum(len(values) for _, values, _ in items)
        if postings < BULK_POSTINGS and postings <= len(self._base_slots):
            for document_id, values, length in items:
                self.add(document_id, values, length)
            return
        self.add_encoded(encode(items))

    def add_encoded(self, batch: EncodedBatch) -> None:
        """Index an encoded batch (ids not held) as a new segment, merged into the base."""
        self._merge(self._segment(batch))

    def _segment(self, batch: EncodedBatch) -> tuple[npt.NDArray[np.int32], SlotArray, ValueArray]:
        """(term ids, slots, stored values) of ``batch``'s postings, its documents given slots
        and its terms counted (returned rather than kept, so a merge can free them early)."""
        local_to_global = self._term_ids.number_array(batch.vocabulary).astype(np.int32)
        self._grow_frequencies()
        batch_terms = local_to_global[batch.terms]
        first = len(self._id_by_slot)
        for document_id, length in zip(batch.ids, batch.lengths, strict=True):
            self._new_slot(document_id, length)
        slots = np.repeat(np.arange(first, first + len(batch), dtype=np.int32), batch.sizes)
        stored = self._transform(batch.values.astype(np.float64)).astype(np.float32)
        self._df[: len(self._term_ids)] += np.bincount(batch_terms, minlength=len(self._term_ids))
        self.version += 1
        return batch_terms, slots, stored

    def remove(self, document_id: str, terms: Callable[[], Iterable[str]]) -> bool:
        """Remove a document; ``terms()`` gives the keys it was added with (called only for a
        base document, whose postings are not kept per document)."""
        slot = self._slot_by_id.pop(document_id, None)
        if slot is None:
            return False
        delta_terms = self._delta_terms.pop(slot, None)
        if delta_terms is not None:
            delta, cache = self._delta, self._delta_cache
            for term_id in delta_terms:
                postings = delta[term_id]
                del postings[slot]
                if not postings:
                    del delta[term_id]
                cache.pop(term_id, None)
            self._delta_postings -= len(delta_terms)
            known = list(delta_terms)
        else:
            known = [i for i in self._term_ids.get_many(list(terms())) if i is not None]
            self._dead_base.append(slot)
            self._dead_cache = None
        self._df[known] -= 1
        self.total_length -= self.lengths[slot]
        self.lengths[slot] = 0.0
        self._id_by_slot[slot] = None
        self.version += 1
        self._changed.update(dict.fromkeys(known, self.version))
        self._maybe_merge()
        return True

    def clear(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Empty the index; ``version`` and ``layout`` keep growing (callers cache by them)."""
        version, layout = self.version, self.layout
        self.__init__(self._transform, self._tag_count)  # type: ignore[misc]
        self.version, self.layout = version + 1, layout + 1

    # -- reading -------------------------------------------------------------------------------

    def document_frequency(self, term: str) -> int:
        """Live documents holding ``term``."""
        term_id = self._term_ids.get(term)
        return 0 if term_id is None else int(self._df[term_id])

    def parts(self, term: str) -> list[Part]:
        """``term``'s postings as (slots ascending, values) blocks: base, then delta. Dead base
        slots are included; :meth:`dead_slots` lists them."""
        term_id = self._term_ids.get(term)
        if term_id is None:
            return []
        found: list[Part] = []
        if term_id + 1 < len(self._base_offsets):
            start, end = self._base_offsets[term_id], self._base_offsets[term_id + 1]
            if end > start:
                found.append((self._base_slots[start:end], self._base_values[start:end]))
        delta = self._delta_part(term_id)
        if delta is not None:
            found.append(delta)
        return found

    def look_up_many(self, terms: Sequence[str]) -> list[LookedUp | None]:
        """Each of ``terms`` as (:meth:`parts`, :meth:`document_frequency`,
        :meth:`value_bounds`), or None for a term without postings: the same values, the
        arrays read once for all the terms rather than per term (a long query asks about a
        hundred (term, field) pairs whose look-ups cost about 2.5 us each one by one)."""
        ids = self._term_ids.get_many(terms)
        known = [term_id for term_id in ids if term_id is not None]
        if not known:
            return [None] * len(terms)
        numbers = np.array(known, np.int64)
        frequencies = self._df[numbers].tolist()
        in_base = len(self._base_offsets) - 1  # terms numbered before the last merge
        based = np.minimum(numbers, max(in_base - 1, 0))
        if in_base > 0:
            starts = self._base_offsets[based].tolist()
            ends = self._base_offsets[based + 1].tolist()
            largest_values = self._base_max[based].tolist()
            shortest_lengths = self._base_min_length[based].tolist()
        base_slots, base_values = self._base_slots, self._base_values
        found: list[LookedUp | None] = []
        position = 0
        for term_id in ids:
            if term_id is None:
                found.append(None)
                continue
            parts: list[Part] = []
            largest, shortest = 0.0, float("inf")
            if term_id < in_base:
                start, end = starts[position], ends[position]
                if end > start:
                    parts.append((base_slots[start:end], base_values[start:end]))
                largest, shortest = largest_values[position], shortest_lengths[position]
            delta = self._delta_part(term_id)
            if delta is not None:
                parts.append(delta)
                largest = max(largest, float(delta[1].max()))
                shortest = min(shortest, float(self.lengths[delta[0]].min()))
            found.append((parts, frequencies[position], largest, shortest) if parts else None)
            position += 1
        return found

    def term_version(self, term: str) -> int:
        """The :attr:`version` of the last write that changed ``term``'s postings or document
        frequency since the last merge (-1 if none did): a reader that looked the term up at
        version ``v`` of the same :attr:`layout` still holds its postings if this is at most
        ``v``. (A merge changes the layout, and every term's postings with it; only the terms
        changed since are remembered, not a number per term.)"""
        if not self._changed:
            return -1
        term_id = self._term_ids.get(term)
        return -1 if term_id is None else self._changed.get(term_id, -1)

    def value_bounds(self, term: str) -> tuple[float, float]:
        """(largest value, smallest document length) over ``term``'s postings: what score
        bounds need (:meth:`look_up_many` reads them). Dead postings may be counted, which
        only loosens a bound."""
        found = self.look_up_many([term])[0]
        return (0.0, float("inf")) if found is None else (found[2], found[3])

    def dead_slots(self) -> SlotArray:
        """Base slots whose documents were removed since the last merge."""
        if self._dead_cache is None:
            self._dead_cache = np.array(self._dead_base, dtype=np.int32)
        return self._dead_cache

    def all_postings(self) -> tuple[SlotArray, ValueArray, npt.NDArray[np.int32]]:
        """(slots, values, term ids) of every stored posting, for whole-corpus passes."""
        counts = np.diff(self._base_offsets)
        base_terms = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        slots, values, terms = [self._base_slots], [self._base_values], [base_terms]
        for term_id in self._delta:
            delta_slots, delta_values = self._delta_part(term_id)  # type: ignore[misc]
            slots.append(delta_slots)
            values.append(delta_values)
            terms.append(np.full(len(delta_slots), term_id, np.int32))
        joined: ValueArray = np.concatenate(values)  # type: ignore[assignment]
        return np.concatenate(slots), joined, np.concatenate(terms)

    def frequencies(self) -> npt.NDArray[np.int32]:
        """Live document frequency by term id."""
        return self._df[: len(self._term_ids)]

    def term_id(self, term: str) -> int | None:
        return self._term_ids.get(term)

    def id_at(self, slot: int) -> str:
        document_id = self._id_by_slot[slot]
        assert document_id is not None
        return document_id

    def ids_at(self, slots: SlotArray) -> list[str]:
        """The ids of live ``slots`` (one call for many: :meth:`id_at` each costs a call)."""
        by_slot = self._id_by_slot
        return [by_slot[slot] for slot in slots.tolist()]

    def slot_of(self, document_id: str) -> int | None:
        return self._slot_by_id.get(document_id)

    # -- persistence (SPEC §11) ----------------------------------------------------------------

    def export_state(self) -> IndexState:
        """The index as plain values (caller holds its lock): the base arrays by reference (a
        merge replaces them, nothing writes into them), copies of the rest. Costs the delta
        and the id and term lists, not the base postings."""
        delta_slots = sorted(self._delta_terms)
        term_lists = [self._delta_terms[slot] for slot in delta_slots]
        delta = self._delta
        values = [
            delta[term][slot]
            for slot, terms in zip(delta_slots, term_lists, strict=True)
            for term in terms
        ]
        return IndexState(
            terms=self._term_ids.terms(),
            ids=list(self._id_by_slot),
            dead=list(self._dead_base),
            lengths=self.lengths[: len(self._id_by_slot)].copy(),
            frequencies=self._df[: len(self._term_ids)].copy(),
            base_offsets=self._base_offsets,
            base_slots=self._base_slots,
            base_values=self._base_values,
            base_max=self._base_max,
            base_min_length=self._base_min_length,
            delta_slots=np.array(delta_slots, np.int32),
            delta_sizes=np.array([len(terms) for terms in term_lists], np.int32),
            delta_terms=np.array([t for terms in term_lists for t in terms], np.int32),
            delta_values=np.array(values, np.float32),
        )

    def restore_state(self, state: IndexState) -> None:
        """Become the index ``state`` was exported from (ValueError if it is inconsistent)."""
        slots, terms = len(state.ids), len(state.terms)
        if (
            len(state.lengths) != slots
            or len(state.frequencies) != terms
            or len(state.base_offsets) < 1
            or len(state.base_offsets) > terms + 1
            or int(state.base_offsets[-1]) != len(state.base_slots)
            or len(state.base_values) != len(state.base_slots)
            or len(state.base_max) != len(state.base_min_length)
            or int(state.delta_sizes.sum()) != len(state.delta_terms)
            or len(state.delta_values) != len(state.delta_terms)
            or len(state.delta_sizes) != len(state.delta_slots)
            or (len(state.base_slots) and int(state.base_slots.max()) >= slots)
            or (len(state.delta_terms) and int(state.delta_terms.max()) >= terms)
        ):
            raise ValueError("the index state's parts do not fit together")
        problem = _out_of_range(state, slots)
        if problem:
            raise ValueError(f"the index state holds {problem}")
        self._reset()
        try:
            self._term_ids = Vocabulary.restored(state.terms)
        except ValueError:
            self._reset()
            raise ValueError("the index state repeats a term") from None
        self._id_by_slot = list(state.ids)
        self._slot_by_id = {d: slot for slot, d in enumerate(state.ids) if d is not None}
        live = sum(d is not None for d in state.ids)
        if len(self._term_ids) != terms or len(self._slot_by_id) != live:
            self._reset()
            raise ValueError("the index state repeats a term or a document id")
        self.lengths = np.zeros(max(16, slots))
        self.lengths[:slots] = state.lengths
        self.tags = np.full((max(16, slots), self._tag_count), -1, np.int32)
        self.total_length = float(state.lengths.sum())
        self._df = np.zeros(max(16, terms), np.int32)
        self._df[:terms] = state.frequencies
        self._base_offsets, self._base_slots = state.base_offsets, state.base_slots
        self._base_values, self._base_max = state.base_values, state.base_max
        self._base_min_length = state.base_min_length
        self._dead_base = list(state.dead)
        start = 0
        values = state.delta_values.tolist()
        term_ids = state.delta_terms.tolist()
        for slot, size in zip(state.delta_slots.tolist(), state.delta_sizes.tolist(), strict=True):
            owned = tuple(term_ids[start : start + size])
            for term_id, value in zip(owned, values[start : start + size], strict=True):
                self._delta.setdefault(term_id, {})[slot] = value
            self._delta_terms[slot] = owned
            start += size
        self._delta_postings = len(term_ids)
        self.version += 1

    # -- internals -----------------------------------------------------------------------------

    def _new_slot(self, document_id: str, length: float) -> int:
        slot = len(self._id_by_slot)
        self._id_by_slot.append(document_id)
        if slot >= len(self.lengths):
            self.lengths = np.concatenate([self.lengths, np.zeros(len(self.lengths))])
        if slot >= len(self.tags):
            grown = np.full((2 * len(self.tags), self._tag_count), -1, np.int32)
            grown[: len(self.tags)] = self.tags
            self.tags = grown
        self._slot_by_id[document_id] = slot
        self.lengths[slot] = length
        self.total_length += length
        return slot

    def _ids_for(self, values: Collection[str]) -> list[int]:
        """The term ids of ``values``' keys, numbering the new ones."""
        ids = self._term_ids.number(list(values))
        self._grow_frequencies()
        return ids

    def _grow_frequencies(self) -> None:
        """Room in the document frequencies for every term numbered."""
        if len(self._term_ids) > len(self._df):
            grown = np.zeros(max(len(self._term_ids), 2 * len(self._df)), np.int32)
            grown[: len(self._df)] = self._df
            self._df = grown

    def _delta_part(self, term_id: int) -> Part | None:
        cached = self._delta_cache.get(term_id)
        if cached is None:
            postings = self._delta.get(term_id)
            if not postings:
                return None
            # New slots only ever grow until a merge, so insertion order is ascending.
            slots = np.fromiter(postings.keys(), dtype=np.int32, count=len(postings))
            values = np.fromiter(postings.values(), dtype=np.float32, count=len(postings))
            cached = (slots, values)
            self._delta_cache[term_id] = cached
        return cached

    def _maybe_merge(self) -> None:
        base = len(self._base_slots)
        unused = len(self._id_by_slot) - len(self._slot_by_id)
        if self._delta_postings >= max(
            MERGE_FLOOR_POSTINGS, base // MERGE_FRACTION
        ) or unused >= max(MERGE_FLOOR_SLOTS, len(self._slot_by_id) // MERGE_FRACTION):
            self._merge(None)

    def _merge(self, batch: tuple[npt.NDArray[np.int32], SlotArray, ValueArray] | None) -> None:
        """Rebuild the base from its live postings, the delta's and ``batch``'s (term ids,
        slots, values), renumbering live slots in their order."""
        if batch is not None and not len(self._base_slots) and not self._delta:
            terms, slots, values = batch  # a first bulk load: nothing to combine it with
        else:
            slots, values, terms = self.all_postings()
            if batch is not None:
                terms = np.concatenate([terms, batch[0]])
                slots = np.concatenate([slots, batch[1]])
                values = np.concatenate([values, batch[2]])
        batch = None
        old_count = len(self._id_by_slot)
        live = np.fromiter(
            (document_id is not None for document_id in self._id_by_slot), bool, old_count
        )
        kept = np.flatnonzero(live)
        if len(kept) < old_count:  # drop the dead postings and close the gaps between slots
            renumber = np.full(old_count, -1, np.int32)
            renumber[kept] = np.arange(len(kept), dtype=np.int32)
            keep = live[slots]
            terms, slots, values = terms[keep], renumber[slots[keep]], values[keep]
            del keep, renumber
            live_ids = [self._id_by_slot[slot] for slot in kept.tolist()]
            self._slot_by_id = {document_id: slot for slot, document_id in enumerate(live_ids)}  # type: ignore[misc]
            self._id_by_slot = live_ids
            lengths = np.zeros(max(16, len(kept)))
            lengths[: len(kept)] = self.lengths[kept]
            self.lengths = lengths
            tags = np.full((max(16, len(kept)), self._tag_count), -1, np.int32)
            tags[: len(kept)] = self.tags[kept]
            self.tags = tags
        term_total = len(self._term_ids)
        counts = np.bincount(terms, minlength=term_total)
        # Postings arrive ordered by slot within each term (base, then delta, then the batch,
        # all ascending), so a stable sort on the term alone yields (term, slot) order.
        order = np.argsort(terms, kind="stable")
        del terms
        slots, values = slots[order], values[order]
        del order
        offsets = np.zeros(term_total + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        if len(slots) <= _OFFSET_MAX:  # 4 bytes a term where the postings allow
            offsets = offsets.astype(np.int32)
        lengths = self.lengths
        values = _compact_values(values)
        self._base_offsets, self._base_slots, self._base_values = offsets, slots, values
        starts = offsets[:-1][counts > 0]
        present = counts > 0
        self._base_max = np.zeros(term_total, np.float32)
        self._base_min_length = np.full(term_total, np.inf, np.float32)
        if len(slots):
            self._base_max[present] = np.maximum.reduceat(values, starts)
            self._base_min_length[present] = np.minimum.reduceat(
                lengths.astype(np.float32)[slots], starts
            )
        self._dead_base, self._dead_cache = [], None
        self._delta, self._delta_cache, self._delta_terms = {}, {}, {}
        self._delta_postings = 0
        self._changed = {}
        self.version += 1
        self.layout += 1


def top_slots(scores: FloatArray, top_k: int) -> list[int]:
    """Slots with the ``top_k`` highest positive scores, plus any tied with the last of them
    (the caller breaks ties by id, so none may be cut arbitrarily here)."""
    candidates = np.flatnonzero(scores > 0.0).astype(np.int32)
    return [int(slot) for slot in best_of(candidates, scores[candidates], top_k)]


def best_of(candidates: SlotArray, values: FloatArray, top_k: int) -> SlotArray:
    """The ``candidates`` with the ``top_k`` highest ``values`` (ties at the boundary kept)."""
    if len(candidates) > top_k:
        kth = np.partition(values, len(values) - top_k)[len(values) - top_k]
        candidates = candidates[values >= kth]
    return candidates


def _out_of_range(state: IndexState, slots: int) -> str:
    """What in ``state`` no index could have written (a slot or an offset outside its range, a
    negative count, a value that is not a finite number, a term that is not a string), so that
    a damaged or forged generation is refused at load, and rebuilt, rather than fail every
    search after it; "" when nothing is. Checks and types that fit one numpy pass per array."""
    if len(state.base_slots) and int(state.base_slots.min()) < 0:
        return "a negative slot"
    offsets = state.base_offsets
    if int(offsets[0]) != 0 or (len(offsets) > 1 and bool((np.diff(offsets) < 0).any())):
        return "offsets that go backwards"
    if len(state.frequencies) and int(state.frequencies.min()) < 0:
        return "a negative document frequency"
    for name in ("lengths", "base_values", "base_max", "base_min_length", "delta_values"):
        values = getattr(state, name)
        if len(values) and not bool(np.isfinite(values).all()):
            return f"{name} that are not finite numbers"
    if len(state.lengths) and float(state.lengths.min()) < 0:
        return "a negative length"
    if len(state.delta_slots) and (
        int(state.delta_slots.min()) < 0 or int(state.delta_slots.max()) >= slots
    ):
        return "a delta slot out of range"
    if len(state.delta_terms) and int(state.delta_terms.min()) < 0:
        return "a negative term id"
    if len(state.delta_sizes) and int(state.delta_sizes.min()) < 0:
        return "a negative size"
    if any(type(slot) is not int or not 0 <= slot < slots for slot in state.dead):
        return "a removed slot that is not a slot"
    if any(type(term) is not str for term in state.terms):
        return "a term that is not a string"
    if any(i is not None and type(i) is not str for i in state.ids):
        return "a document id that is not a string"
    return ""


def restored_index(
    state: StreamState,
    kind: str,
    transform: Callable[[FloatArray], FloatArray] = _identity,
    tag_count: int = 0,
) -> InvertedIndex:
    """A new index restored from ``state``'s, checked to hold exactly ``state.ids`` (ValueError
    otherwise: a store's parts that do not fit are refused, not half used)."""
    if state.kind != kind or state.index is None:
        raise ValueError(f"a {state.kind!r} stream's state cannot restore a {kind!r} stream")
    index = InvertedIndex(transform, tag_count)
    index.restore_state(state.index)
    if len(index) != len(state.ids) or not all(i in index for i in state.ids):
        raise ValueError(f"the {kind} stream's documents and its index disagree")
    return index

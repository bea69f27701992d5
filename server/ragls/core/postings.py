"""The inverted index shared by BM25Stream and the TF-IDF knowledge base.

Each document gets a small integer *slot*; each term maps slots to a value (a term frequency, a
tf weight). Writes go to plain dicts, so adding or removing one document costs its own terms
only. Scoring reads per-term numpy arrays (slots, values) built from those dicts on first use
after a change of that term and cached, so a query costs a few vectorised operations per query
term instead of a Python loop over every posting (the reason for numpy in the core: pure Python
scoring was 50x slower than the peers' on the standard library). Per-slot document lengths live
in one float array. Callers hold their own lock; this class is not thread-safe on its own.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
SlotArray = npt.NDArray[np.int64]


class InvertedIndex:
    def __init__(self) -> None:
        self._slot_by_id: dict[str, int] = {}
        self._id_by_slot: list[str | None] = []
        self._free: list[int] = []
        self._terms_by_slot: dict[int, tuple[str, ...]] = {}
        self._postings: dict[str, dict[int, float]] = {}
        self._cache: dict[str, tuple[SlotArray, FloatArray]] = {}
        self.lengths: FloatArray = np.zeros(16)
        self.total_length = 0.0

    def __len__(self) -> int:
        return len(self._slot_by_id)

    def __contains__(self, document_id: object) -> bool:
        return document_id in self._slot_by_id

    @property
    def slot_count(self) -> int:
        """One past the highest slot ever used: the size score arrays need."""
        return len(self._id_by_slot)

    @property
    def term_count(self) -> int:
        return len(self._postings)

    def terms(self) -> list[str]:
        return list(self._postings)

    def add(self, document_id: str, values: Mapping[str, float], length: float) -> int:
        """Index a document (the caller removed any previous one with that id)."""
        if self._free:
            slot = self._free.pop()
            self._id_by_slot[slot] = document_id
        else:
            slot = len(self._id_by_slot)
            self._id_by_slot.append(document_id)
            if slot >= len(self.lengths):
                self.lengths = np.concatenate([self.lengths, np.zeros(len(self.lengths))])
        self._slot_by_id[document_id] = slot
        self.lengths[slot] = length
        self.total_length += length
        self._terms_by_slot[slot] = tuple(values)
        postings, cache = self._postings, self._cache
        for term, value in values.items():
            term_postings = postings.get(term)
            if term_postings is None:
                postings[term] = {slot: value}
            else:
                term_postings[slot] = value
        if cache:  # after a bulk load nothing is cached yet: skip the per-term pops
            for term in values:
                cache.pop(term, None)
        return slot

    def remove(self, document_id: str) -> bool:
        slot = self._slot_by_id.pop(document_id, None)
        if slot is None:
            return False
        postings, cache = self._postings, self._cache
        for term in self._terms_by_slot.pop(slot):
            term_postings = postings[term]
            del term_postings[slot]
            if not term_postings:
                del postings[term]
            cache.pop(term, None)
        self.total_length -= self.lengths[slot]
        self.lengths[slot] = 0.0
        self._id_by_slot[slot] = None
        self._free.append(slot)
        return True

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def document_frequency(self, term: str) -> int:
        postings = self._postings.get(term)
        return 0 if postings is None else len(postings)

    def arrays(self, term: str) -> tuple[SlotArray, FloatArray] | None:
        """(slots, values) of ``term``'s postings, or None if no document has it."""
        cached = self._cache.get(term)
        if cached is None:
            postings = self._postings.get(term)
            if not postings:
                return None
            slots = np.fromiter(postings.keys(), dtype=np.int64, count=len(postings))
            values = np.fromiter(postings.values(), dtype=np.float64, count=len(postings))
            cached = (slots, values)
            self._cache[term] = cached
        return cached

    def id_at(self, slot: int) -> str:
        document_id = self._id_by_slot[slot]
        assert document_id is not None
        return document_id

    def slot_of(self, document_id: str) -> int | None:
        return self._slot_by_id.get(document_id)


def top_slots(scores: FloatArray, top_k: int) -> list[int]:
    """Slots with the ``top_k`` highest positive scores, plus any tied with the last of them
    (the caller breaks ties by id, so none may be cut arbitrarily here)."""
    candidates = np.flatnonzero(scores > 0.0)
    if len(candidates) > top_k:
        values = scores[candidates]
        kth = np.partition(values, len(values) - top_k)[len(values) - top_k]
        candidates = candidates[values >= kth]
    return [int(slot) for slot in candidates]

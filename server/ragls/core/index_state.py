"""The whole state of one inverted index or stream as plain values, for a store (SPEC §11).

An :class:`IndexState` is what :meth:`ragls.core.postings.InvertedIndex.export_state` returns
and :meth:`~ragls.core.postings.InvertedIndex.restore_state` takes: the numpy arrays of the base
segment as they are (no copy, no re-sort: a merged base is immutable, the index replaces it
rather than writing into it), copies of the arrays the index changes in place, and the delta as
three flat arrays. Restoring it gives an index that scores exactly as the exported one did, so a
warm start answers without analysing any text again.

A :class:`StreamState` is one retrieval stream's state: the ids of the documents it holds (in
its order: a bounded BM25's access order), its index, and its counters. The documents themselves
are stored once for all streams, by the service.

Both split into named arrays and named plain objects (:meth:`IndexState.parts`), which is all a
store needs to know of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

ARRAY_FIELDS = (
    "lengths",
    "frequencies",
    "base_offsets",
    "base_slots",
    "base_values",
    "base_max",
    "base_min_length",
    "delta_slots",
    "delta_sizes",
    "delta_terms",
    "delta_values",
)


@dataclass(frozen=True, slots=True)
class IndexState:
    terms: list[str]  # term id -> term
    ids: list[str | None]  # slot -> document id (None: a removed document's slot)
    dead: list[int]  # base slots removed since the last merge
    lengths: npt.NDArray[np.float64]
    frequencies: npt.NDArray[np.int32] | npt.NDArray[np.int64]  # live document frequency by term
    base_offsets: npt.NDArray[np.int32] | npt.NDArray[np.int64]  # int32 below 2^31 postings
    base_slots: npt.NDArray[np.int32]
    base_values: npt.NDArray[np.float32] | npt.NDArray[np.uint16]  # uint16: whole counts
    base_max: npt.NDArray[np.float32]
    base_min_length: npt.NDArray[np.float32]
    delta_slots: npt.NDArray[np.int32]  # slots with delta postings, ascending
    delta_sizes: npt.NDArray[np.int32]  # postings of each of those slots
    delta_terms: npt.NDArray[np.int32]  # their term ids, slot by slot
    delta_values: npt.NDArray[np.float32]

    def parts(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, object]]:
        """(named arrays, named plain objects): the state as a store writes it."""
        arrays = {name: getattr(self, name) for name in ARRAY_FIELDS}
        return arrays, {"terms": self.terms, "ids": self.ids, "dead": self.dead}

    @classmethod
    def from_parts(
        cls, arrays: Mapping[str, npt.NDArray[Any]], objects: Mapping[str, Any]
    ) -> IndexState:
        """The inverse of :meth:`parts` (KeyError/TypeError on a missing or misshapen part)."""
        return cls(
            terms=list(objects["terms"]),
            ids=list(objects["ids"]),
            dead=list(objects["dead"]),
            **{name: arrays[name] for name in ARRAY_FIELDS},
        )


@dataclass(frozen=True, slots=True)
class StreamState:
    """One stream's documents (by id, in the stream's order), index and counters; a stream
    without an inverted index (the semantic stream) keeps its own named 1-D arrays and the
    name of the model that made them; a stream may keep strings of its own (the code stream:
    the values its per-slot tags number, with the tags among its arrays)."""

    kind: str
    ids: list[str]
    index: IndexState | None
    counters: Mapping[str, int] = field(default_factory=dict)
    arrays: Mapping[str, npt.NDArray[Any]] = field(default_factory=dict)
    model: str | None = None
    strings: list[str] = field(default_factory=list)

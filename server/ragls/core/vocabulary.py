"""An inverted index's terms, numbered in order of first sight, held in arrays (SPEC §4, §10).

A dict of term strings to id numbers costs about 120 bytes a term in small objects (the string,
the int, the dict's entry): 30 MB for the 260,000 terms of the standard library's code stream,
a fifth of its index. :class:`Vocabulary` keeps each term's 64-bit string hash in a sorted
numpy array beside its id (12 bytes; :class:`ragls.core.hashed.SortedKeys`), and the terms'
characters in one string per settled group (export needs them; nothing else reads a term
back). The terms numbered since the last
settling wait in a small dict (``SETTLE_TERMS`` at most), so that a write of one document
does not re-sort the arrays.

Two distinct terms sharing a 64-bit hash (about one chance in 10^9 for a quarter million terms)
would share an id, as in ``ragls.core.splits``; a stored vocabulary that repeats a hash is
refused as repeating a term, which rebuilds the index from files rather than guess.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ragls.core.hashed import SortedKeys, string_keys

# Terms numbered since the last settling are kept in a dict up to this many.
SETTLE_TERMS = 1 << 12
# Settled terms that get() found lately, kept in a dict up to this many (then started over).
RECENT_TERMS = 1 << 12


class Vocabulary:
    """Terms numbered 0, 1, ... in the order they were first numbered (see the module doc).
    Not thread-safe, as the index that owns it is not: its owner serialises access (reads
    included: a settling replaces the arrays one after the other)."""

    def __init__(self) -> None:
        self._settled = SortedKeys(np.int32)  # the settled terms' hashes, with their ids
        self._pending: dict[str, int] = {}  # terms numbered since the last settling
        self._pieces: list[str] = []  # the settled terms' characters, joined per settling
        self._ends = array("q")  # where each settled term ends in the joined pieces
        self._recent: dict[str, int] = {}  # settled terms :meth:`get` found lately

    def __len__(self) -> int:
        return len(self._ends) + len(self._pending)

    def get(self, term: str) -> int | None:
        """``term``'s id, None if it has none. The terms found lately are kept in a small dict:
        searches ask the same words again (a search of the arrays costs about 0.7 us, a dict
        look-up a third of that)."""
        found = self._recent.get(term)
        if found is not None:
            return found
        found = self._pending.get(term)
        if found is not None or not len(self._settled):
            return found
        found = self._settled.find_one(hash(term))
        if found is not None:
            if len(self._recent) >= RECENT_TERMS:
                self._recent.clear()
            self._recent[term] = found
        return found

    def get_many(self, terms: Sequence[str]) -> list[int | None]:
        """:meth:`get` of each of ``terms``, the settled ones looked up together."""
        found: list[int | None] = [None] * len(terms)
        if len(self._settled) and terms:
            ids, hit = self._settled.find(string_keys(terms, len(terms)))
            found = [
                i if known else None for i, known in zip(ids.tolist(), hit.tolist(), strict=True)
            ]
        pending = self._pending
        if pending:
            for position, term in enumerate(terms):
                number = pending.get(term)
                if number is not None:
                    found[position] = number
        return found

    def number(self, terms: Sequence[str]) -> list[int]:
        """The id of each of ``terms``, numbering the new ones in their order."""
        if len(terms) > SETTLE_TERMS:
            numbers: list[int] = self.number_array(terms).tolist()
            return numbers
        found = self.get_many(terms)
        pending = self._pending
        for position, number in enumerate(found):
            if number is None:
                term = terms[position]
                number = pending.get(term)  # a term given twice is new once
                if number is None:
                    number = pending[term] = len(self)
                found[position] = number
        if len(pending) > SETTLE_TERMS:
            self._settle()
        return found  # type: ignore[return-value]

    def number_array(self, terms: Sequence[str]) -> npt.NDArray[np.int64]:
        """:meth:`number` as an array, for many terms: the new ones go straight into the
        arrays, looked up and numbered without a Python step per known term."""
        self._settle()
        keys = string_keys(terms, len(terms))
        ids, hit = self._settled.find(keys)
        if not hit.all():
            missing = np.flatnonzero(~hit)
            _, first = np.unique(keys[missing], return_index=True)  # a term given twice: once
            new = [terms[position] for position in missing[np.sort(first)].tolist()]
            self._add_settled(new, len(self))
            ids[missing] = self._settled.find(keys[missing])[0]
        return ids

    def terms(self) -> list[str]:
        """Every term, by id."""
        self._settle()
        joined = "".join(self._pieces)
        self._pieces = [joined] if joined else []
        ends = self._ends.tolist()
        starts = [0, *ends[:-1]] if ends else []
        return [joined[start:end] for start, end in zip(starts, ends, strict=True)]

    @classmethod
    def restored(cls, terms: Iterable[str]) -> Vocabulary:
        """A vocabulary numbering ``terms`` in order; ValueError if a term repeats."""
        vocabulary = cls()
        vocabulary._add_settled(list(terms), 0)
        if vocabulary._settled.repeats():
            raise ValueError("the terms repeat a term")
        return vocabulary

    def _settle(self) -> None:
        """Move the pending terms into the arrays."""
        if not self._pending:
            return
        terms = list(self._pending)
        first = len(self._ends)
        self._pending = {}
        self._add_settled(terms, first)

    def _add_settled(self, terms: list[str], first: int) -> None:
        """Add ``terms``, numbered ``first``, ``first + 1``, ..., to the arrays."""
        if not terms:
            return
        self._pieces.append("".join(terms))
        base = self._ends[-1] if self._ends else 0
        ends = np.cumsum(np.fromiter(map(len, terms), np.int64, len(terms))) + base
        self._ends.extend(ends.tolist())
        ids = np.arange(first, first + len(terms), dtype=np.int32)
        self._settled.add(string_keys(terms, len(terms)), ids)

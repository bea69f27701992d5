"""An index run's split identifiers, kept as arrays (what :func:`ragls.core.code_stream.
encode_documents` expands a batch's identifiers with).

A large batch is encoded in two steps: each document's identifiers are counted (in C), then
every distinct identifier is replaced by its terms, the whole and its parts
(:func:`ragls.core.identifiers.split_identifier`). An index run meets most identifiers again and
again, so it splits each once and keeps the result for the next batches: on the standard
library, 256,000 distinct identifiers for 55,000 chunks.

Kept as a dict of identifier strings to tuples of term strings, that cache was about 30 MB of
small objects made while the run's index grew, and freed when the run ended: the holes it left
among the objects the run keeps stayed in the process's heap (the allocator gives back only
wholly empty arenas), 42 MB of free blocks after a cold index at 1x. Here the cache holds
no object per identifier. An identifier is known by its 64-bit string hash (sorted, searched
with numpy: :class:`ragls.core.hashed.SortedKeys`); its terms are numbers in one flat array,
each number a term of the run, numbered once (:attr:`SplitCache.terms`, one string a term for
the run). Two distinct
identifiers of one run sharing a 64-bit hash (about one chance in 10^9 for a quarter million
identifiers) would share a split. Expanding a batch is then array work: no Python loop runs
per identifier met again.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ragls.core.batches import EncodedBatch
from ragls.core.hashed import SortedKeys, string_keys

Splitter = Callable[[str], Sequence[str]]


class SplitCache:
    """Identifiers split once (by ``splitter``), for every batch :meth:`expand` is given.
    ``body(term)`` says whether a term counts toward a document's (body) length."""

    def __init__(self, splitter: Splitter, body: Callable[[str], bool]) -> None:
        self._splitter = splitter
        self._body = body
        self._known = SortedKeys()  # each identifier's hash, with its entry
        self._starts = array("q")  # each entry's first term in _flat
        self._widths = array("q")  # each entry's number of terms
        self._flat = array("i")  # the run term numbers of every entry's terms, in order
        self._numbers: dict[str, int] = {}  # term -> run term number
        self.terms: list[str] = []  # run term number -> term
        self._in_body = array("b")  # run term number -> counts toward the length

    def __len__(self) -> int:
        """Identifiers split so far."""
        return len(self._starts)

    def _entries_of(self, keys: Sequence[str]) -> npt.NDArray[np.int64]:
        """The entry of each of ``keys`` (distinct), splitting those not met before."""
        hashes = string_keys(keys, len(keys))
        entries, known = self._known.find(hashes)
        missing = np.flatnonzero(~known)
        if len(missing):
            first = len(self._starts)
            numbers, terms, in_body, body = self._numbers, self.terms, self._in_body, self._body
            flat, starts, widths = self._flat, self._starts, self._widths
            for position in missing.tolist():
                split = self._splitter(keys[position])
                starts.append(len(flat))
                widths.append(len(split))
                for term in split:
                    number = numbers.get(term)
                    if number is None:
                        number = numbers[term] = len(terms)
                        terms.append(term)
                        in_body.append(body(term))
                    flat.append(number)
            added = np.arange(first, len(self._starts), dtype=np.int64)
            entries[missing] = added
            self._known.add(hashes[missing], added)
        return entries

    def expand(self, plain: EncodedBatch) -> EncodedBatch:
        """``plain`` (identifier counts per document) with every identifier replaced by its
        terms, each posting's value carried to every term it expands to and the values of a
        term reached twice within a document summed; each document's length is the sum of
        its body terms' values. The vocabulary is the terms used, in run term order."""
        entries = self._entries_of(plain.vocabulary)
        starts = np.frombuffer(self._starts, np.int64)[entries]
        widths = np.frombuffer(self._widths, np.int64)[entries]
        flat = np.array(self._flat, np.int32)
        repeats = widths[plain.terms]
        total = int(repeats.sum())
        # Position of each output posting within its source posting's expansion.
        first_output = np.cumsum(repeats) - repeats
        within = np.arange(total, dtype=np.int64) - np.repeat(first_output, repeats)
        terms = flat[np.repeat(starts[plain.terms], repeats) + within].astype(np.int64)
        values = np.repeat(plain.values, repeats)
        documents = np.repeat(
            np.repeat(np.arange(len(plain), dtype=np.int64), plain.sizes), repeats
        )
        del within, first_output, flat
        width = max(len(self.terms), 1)
        unique, inverse = np.unique(documents * width + terms, return_inverse=True)
        del documents, terms
        summed = np.bincount(inverse.reshape(-1), weights=values, minlength=len(unique))
        del inverse, values
        owners, run_terms = unique // width, unique % width
        sizes = np.bincount(owners, minlength=len(plain)).astype(np.int32)
        used = np.zeros(width, bool)
        used[run_terms] = True
        numbers = (np.cumsum(used) - 1).astype(np.int32)
        in_body = np.frombuffer(self._in_body, np.int8).astype(bool)[run_terms]
        lengths = np.bincount(owners[in_body], weights=summed[in_body], minlength=len(plain))
        terms_list = self.terms
        return EncodedBatch(
            plain.ids,
            lengths.tolist(),
            [terms_list[number] for number in np.flatnonzero(used).tolist()],
            numbers[run_terms],
            summed.astype(np.float32),
            sizes,
        )

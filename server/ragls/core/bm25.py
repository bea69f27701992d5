"""BM25Stream: Okapi BM25 over an inverted index, with a capacity and an expiry (SPEC §3).

* Scoring is :func:`bm25_idf` and :func:`bm25_term_score`, small pure functions over the frozen
  :class:`BM25Parameters` (K1 = 1.2, B = 0.75); the search applies the same formula vectorised
  over each query term's postings (:mod:`ragls.core.postings`), touching only those postings.
* Capacity: at most ``max_documents`` (10,000 by default); adding past it evicts the least recently
  accessed documents. Expiry: a document is dropped once ``ttl_seconds`` (one hour) have passed
  since its last access, i.e. when ``now - last_access >= ttl``. Being added, replaced or returned
  by a search counts as access. Both drops are counted (:class:`BM25Stats`).
* Documents are kept in access order (an ``OrderedDict`` moved-to-end on access), so eviction and
  expiry pop from the front in constant time each.
* One mutex guards the index. ``replace_documents`` analyzes the incoming documents before taking
  it and then removes and adds under it, so a reader sees the whole old set or the whole new one.
  Searches take it too, because returning a document is an access that reorders the LRU.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ragls.core.analyzer import SynonymTable, analyze, term_counts
from ragls.core.documents import Document, SearchResult
from ragls.core.postings import InvertedIndex, top_slots
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k
from ragls.errors import InvalidArgumentError

DEFAULT_MAX_DOCUMENTS = 10_000
DEFAULT_TTL_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class BM25Parameters:
    """Okapi BM25's free parameters."""

    k1: float = 1.2
    b: float = 0.75


@dataclass(frozen=True, slots=True)
class BM25Stats:
    """What the stream holds and what its cap and expiry have dropped since it was made."""

    documents: int
    terms: int
    evicted: int
    expired: int


def bm25_idf(document_count: int, document_frequency: int) -> float:
    """idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5)); always positive."""
    return math.log(1.0 + (document_count - document_frequency + 0.5) / (document_frequency + 0.5))


def bm25_term_score(
    term_frequency: int,
    document_length: int,
    average_length: float,
    idf: float,
    parameters: BM25Parameters,
) -> float:
    """One term's contribution: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))."""
    k1, b = parameters.k1, parameters.b
    norm = k1 * (1.0 - b + b * document_length / average_length)
    return idf * term_frequency * (k1 + 1.0) / (term_frequency + norm)


class _Entry:
    __slots__ = ("document", "last_access")

    def __init__(self, document: Document, now: float) -> None:
        self.document = document
        self.last_access = now


def _count_terms(document: Document) -> tuple[dict[str, int], int]:
    _, stemmed, length = term_counts(document.content)
    return stemmed, length


class BM25Stream:
    """A retrieval stream ranking documents by Okapi BM25 (SPEC §3)."""

    def __init__(
        self,
        *,
        max_documents: int = DEFAULT_MAX_DOCUMENTS,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        parameters: BM25Parameters | None = None,
        synonyms: SynonymTable | None = None,
        name: str = "bm25",
    ) -> None:
        if isinstance(max_documents, bool) or not isinstance(max_documents, int):
            raise InvalidArgumentError("max_documents must be an integer")
        if max_documents < 1:
            raise InvalidArgumentError(f"max_documents must be at least 1, got {max_documents}")
        if not isinstance(ttl_seconds, int | float) or not ttl_seconds > 0:
            raise InvalidArgumentError(f"ttl_seconds must be positive, got {ttl_seconds!r}")
        self._name = name
        self._max_documents = max_documents
        self._ttl = float(ttl_seconds)
        self._clock = clock
        self._parameters = parameters or BM25Parameters()
        self._synonyms = synonyms
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._index = InvertedIndex()
        self._evicted = 0
        self._expired = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def max_documents(self) -> int:
        return self._max_documents

    @property
    def ttl_seconds(self) -> float:
        return self._ttl

    @property
    def synonyms(self) -> SynonymTable | None:
        return self._synonyms

    @synonyms.setter
    def synonyms(self, table: SynonymTable | None) -> None:
        self._synonyms = table

    # -- writing -------------------------------------------------------------------------------

    def add(self, document: Document) -> None:
        """Add or replace one document."""
        self.replace_documents((), (document,))

    def remove(self, document_id: str) -> bool:
        """Remove a document; False if it was not held."""
        with self._lock:
            self._purge_expired(self._clock())
            return self._unindex(document_id)

    def replace_documents(self, remove_ids: Iterable[str], add: Iterable[Document]) -> None:
        """Remove ``remove_ids`` and add ``add`` as one atomic step under the write lock."""
        removals = list(remove_ids)
        prepared = [(document, *_count_terms(document)) for document in add]
        with self._lock:
            now = self._clock()
            self._purge_expired(now)
            for document_id in removals:
                self._unindex(document_id)
            for document, counts, length in prepared:
                self._unindex(document.id)
                self._entries[document.id] = _Entry(document, now)
                self._index.add(document.id, counts, length)
            while len(self._entries) > self._max_documents:
                oldest_id = next(iter(self._entries))
                self._unindex(oldest_id)
                self._evicted += 1

    def clear(self) -> None:
        """Drop every document; the drop counters are kept (they describe the stream's life)."""
        with self._lock:
            self._entries.clear()
            self._index.clear()

    # -- reading -------------------------------------------------------------------------------

    def get(self, document_id: str) -> Document | None:
        """The document, if held and not expired (reading it is not an access)."""
        with self._lock:
            self._purge_expired(self._clock())
            entry = self._entries.get(document_id)
            return None if entry is None else entry.document

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        """The ``top_k`` best documents for ``query``, best first; ties broken by id."""
        check_top_k(top_k, MAX_STREAM_TOP_K)
        terms = analyze(check_query(query), query=True, synonyms=self._synonyms)
        if not terms:
            return []
        with self._lock:
            now = self._clock()
            self._purge_expired(now)
            index = self._index
            count = len(index)
            if count == 0:
                return []
            average_length = index.total_length / count
            k1, b = self._parameters.k1, self._parameters.b
            scores = np.zeros(index.slot_count)
            for term in terms:
                arrays = index.arrays(term)
                if arrays is None:
                    continue
                slots, frequencies = arrays
                idf = bm25_idf(count, len(slots))
                norms = k1 * (1.0 - b + b * index.lengths[slots] / average_length)
                # bm25_term_score, vectorised over the term's postings
                scores[slots] += idf * frequencies * (k1 + 1.0) / (frequencies + norms)
            ranked = sorted(
                ((float(scores[slot]), index.id_at(slot)) for slot in top_slots(scores, top_k)),
                key=lambda item: (-item[0], item[1]),
            )[:top_k]
            results = []
            for score, document_id in ranked:
                entry = self._entries[document_id]
                entry.last_access = now
                self._entries.move_to_end(document_id)
                results.append(SearchResult(entry.document, score))
            return results

    def stats(self) -> BM25Stats:
        with self._lock:
            self._purge_expired(self._clock())
            return BM25Stats(
                documents=len(self._entries),
                terms=self._index.term_count,
                evicted=self._evicted,
                expired=self._expired,
            )

    def ids(self) -> list[str]:
        """Ids held, least recently accessed first."""
        with self._lock:
            self._purge_expired(self._clock())
            return list(self._entries)

    def __len__(self) -> int:
        with self._lock:
            self._purge_expired(self._clock())
            return len(self._entries)

    def __contains__(self, document_id: object) -> bool:
        return isinstance(document_id, str) and self.get(document_id) is not None

    # -- internals (lock held) -----------------------------------------------------------------

    def _unindex(self, document_id: str) -> bool:
        if self._entries.pop(document_id, None) is None:
            return False
        self._index.remove(document_id)
        return True

    def _purge_expired(self, now: float) -> None:
        entries = self._entries
        while entries:
            oldest_id, oldest = next(iter(entries.items()))
            if now - oldest.last_access < self._ttl:
                break
            self._unindex(oldest_id)
            self._expired += 1

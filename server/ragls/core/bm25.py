"""BM25Stream: Okapi BM25 over an inverted index, with a capacity and an expiry (SPEC §3).

* Scoring is :func:`bm25_idf` and :func:`bm25_term_score`, small pure functions over the frozen
  :class:`BM25Parameters` (K1 = 1.2, B = 0.75); the search applies the same formula vectorised
  over each query term's postings (:mod:`ragls.core.postings`), touching only those postings,
  and prunes the long postings of common terms where they cannot change the top k
  (:mod:`ragls.core.pruning`; a term's bound is its idf times the tf part at the term's largest
  count and shortest document). The per-document length norm is one array per corpus version.
* Capacity: at most ``max_documents`` (10,000 by default); adding past it evicts the least recently
  accessed documents. Expiry: a document is dropped once ``ttl_seconds`` (one hour) have passed
  since its last access, i.e. when ``now - last_access >= ttl``. Being added, replaced or returned
  by a search counts as access. Both drops are counted (:class:`BM25Stats`). ``None`` for either
  means unbounded: the stream a workspace index builds for itself is a complete index, not a
  cache (SPEC §3), so :meth:`BM25Stream.unbounded` is what RagService uses.
* Documents are kept in access order (an ``OrderedDict`` moved-to-end on access), so eviction and
  expiry pop from the front in constant time each.
* One mutex guards the index. ``replace_documents`` analyzes the incoming documents before taking
  it and then removes and adds under it, so a reader sees the whole old set or the whole new one.
  Searches take it too, because returning a document is an access that reorders the LRU.
* A batch larger than the capacity indexes only the documents that would survive it: the ones
  the cap would evict at once are counted as evicted without being indexed (same result, and a
  cold index of a big repository does not index and then drop most of it).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ragls.core.analyzer import SynonymTable, analyze, term_counts
from ragls.core.batches import (
    EncodedBatch,
    analyze_documents,
    describes,
    latest_by_id,
    stem_batch,
    tail,
)
from ragls.core.documents import Document, SearchResult
from ragls.core.index_state import StreamState
from ragls.core.postings import (
    FloatArray,
    InvertedIndex,
    SlotArray,
    ValueArray,
    restored_index,
    scaled,
)
from ragls.core.pruning import PruningStats, QueryTerm, ranked_ids
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k, most_specific
from ragls.errors import InvalidArgumentError

DEFAULT_MAX_DOCUMENTS = 10_000
DEFAULT_TTL_SECONDS = 3600.0
# A batch of more documents than this is encoded into arrays rather than dicts before the lock.
ENCODE_FROM_DOCUMENTS = 512


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
    term_frequency: float,
    document_length: float,
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


def _count_terms(document: Document) -> tuple[dict[str, int], float]:
    _, stemmed, length = term_counts(document.content)
    return stemmed, float(length)


def _indexed_terms(document: Document) -> list[str]:
    return list(_count_terms(document)[0])


class BM25Stream:
    """A retrieval stream ranking documents by Okapi BM25 (SPEC §3)."""

    def __init__(
        self,
        *,
        max_documents: int | None = DEFAULT_MAX_DOCUMENTS,
        ttl_seconds: float | None = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        parameters: BM25Parameters | None = None,
        synonyms: SynonymTable | None = None,
        name: str = "bm25",
    ) -> None:
        if max_documents is not None:
            if isinstance(max_documents, bool) or not isinstance(max_documents, int):
                raise InvalidArgumentError("max_documents must be an integer or None")
            if max_documents < 1:
                raise InvalidArgumentError(f"max_documents must be at least 1, got {max_documents}")
        if ttl_seconds is not None and (
            isinstance(ttl_seconds, bool)
            or not isinstance(ttl_seconds, int | float)
            or not ttl_seconds > 0
            or not math.isfinite(ttl_seconds)
        ):
            raise InvalidArgumentError(
                f"ttl_seconds must be a positive number or None, got {ttl_seconds!r}"
            )
        self._name = name
        self._max_documents = max_documents
        self._ttl = None if ttl_seconds is None else float(ttl_seconds)
        self._clock = clock
        self._parameters = parameters or BM25Parameters()
        self._synonyms = synonyms
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._index = InvertedIndex()
        self._evicted = 0
        self._expired = 0
        self._length_norms: tuple[int, FloatArray] | None = None
        self.last_search = PruningStats()

    @classmethod
    def unbounded(
        cls,
        *,
        clock: Callable[[], float] = time.monotonic,
        synonyms: SynonymTable | None = None,
        name: str = "bm25",
    ) -> BM25Stream:
        """A stream with no capacity and no expiry: every document stays until removed."""
        return cls(max_documents=None, ttl_seconds=None, clock=clock, synonyms=synonyms, name=name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def max_documents(self) -> int | None:
        return self._max_documents

    @property
    def ttl_seconds(self) -> float | None:
        return self._ttl

    @property
    def bounded(self) -> bool:
        """Whether a capacity or an expiry can drop documents."""
        return self._max_documents is not None or self._ttl is not None

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

    def replace_documents(
        self,
        remove_ids: Iterable[str],
        add: Iterable[Document],
        analyzed: EncodedBatch | None = None,
    ) -> None:
        """Remove ``remove_ids`` and add ``add`` as one atomic step under the write lock.
        ``analyzed``, if given, is :func:`~ragls.core.batches.analyze_documents` of ``add``
        (shared with the knowledge base, so a large commit tokenizes once)."""
        removals = list(remove_ids)
        additions = list(add)
        latest = latest_by_id(additions)
        batch = list(latest.values())
        cap = self._max_documents
        survivors = batch if cap is None else batch[-cap:]
        # Analysed outside the lock; a large batch straight into arrays (ragls.core.batches).
        encoded = None
        if len(survivors) > ENCODE_FROM_DOCUMENTS:
            if describes(analyzed, additions, len(batch)):
                encoded = stem_batch(tail(analyzed, len(survivors)))  # type: ignore[arg-type]
            else:
                encoded = stem_batch(analyze_documents(survivors))
        prepared = [] if encoded else [(d.id, *_count_terms(d)) for d in survivors]
        with self._lock:
            now = self._clock()
            self._purge_expired(now)
            for document_id in removals:
                self._unindex(document_id)
            for document in batch:
                self._unindex(document.id)
            # The cap evicts the least recently accessed first: the held documents, then the
            # batch's earliest, which are therefore never indexed (they count as evicted).
            self._evicted += len(batch) - len(survivors)
            room = None if cap is None else cap - len(survivors)
            while room is not None and len(self._entries) > room:
                self._unindex(next(iter(self._entries)))
                self._evicted += 1
            for document in survivors:
                self._entries[document.id] = _Entry(document, now)
            if encoded is not None:
                self._index.add_encoded(encoded)
            else:
                self._index.add_many(prepared)

    def clear(self) -> None:
        """Drop every document; the drop counters are kept (they describe the stream's life)."""
        with self._lock:
            self._entries.clear()
            self._index.clear()

    def export_state(self) -> StreamState:
        """The stream as plain values (SPEC §11): ids in access order, index, drop counters."""
        with self._lock:
            self._purge_expired(self._clock())
            counters = {"evicted": self._evicted, "expired": self._expired}
            return StreamState("bm25", list(self._entries), self._index.export_state(), counters)

    def restore_state(self, state: StreamState, documents: Mapping[str, Document]) -> None:
        """Hold what ``state`` describes, its documents taken from ``documents`` (restored ones
        count as accessed now). KeyError/ValueError if they do not fit; nothing changes then."""
        index = restored_index(state, "bm25")
        now = self._clock()
        entries = OrderedDict((i, _Entry(documents[i], now)) for i in state.ids)
        with self._lock:
            self._entries, self._index = entries, index
            self._evicted = int(state.counters.get("evicted", 0))
            self._expired = int(state.counters.get("expired", 0))
            self._length_norms = None

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
            terms = most_specific(terms, index.document_frequency)
            self.last_search = stats = PruningStats()
            ranked = ranked_ids(self._query_terms(terms), index, top_k, stats)
            results = []
            for score, document_id in ranked:
                entry = self._entries[document_id]
                entry.last_access = now
                self._entries.move_to_end(document_id)
                results.append(SearchResult(entry.document, score))
            return results

    def _query_terms(self, terms: list[str]) -> list[QueryTerm]:
        """Each query term with postings, as :func:`bm25_term_score` vectorised (lock held)."""
        index = self._index
        count = len(index)
        average_length = index.total_length / count
        k1 = self._parameters.k1
        norms = self._norms(average_length)
        query_terms = []
        for found in index.look_up_many(terms):
            if found is None:
                continue
            parts, frequency, largest, shortest = found
            idf = bm25_idf(count, frequency)
            # The tf part grows with the count and shrinks with the length: this bounds it.
            bound = bm25_term_score(largest, shortest, average_length, idf, self._parameters)

            def weigh(slots: SlotArray, frequencies: ValueArray, idf: float = idf) -> FloatArray:
                return scaled(frequencies, idf) * (k1 + 1.0) / (frequencies + norms[slots])

            query_terms.append(QueryTerm(parts, weigh, bound))
        return query_terms

    def _norms(self, average_length: float) -> FloatArray:
        """k1 * (1 - b + b * dl / avgdl) of every slot (the length part of
        :func:`bm25_term_score`), computed once per version of the index."""
        index = self._index
        if self._length_norms is None or self._length_norms[0] != index.version:
            k1, b = self._parameters.k1, self._parameters.b
            lengths = index.lengths[: index.slot_count]
            self._length_norms = (index.version, k1 * (1.0 - b + b * lengths / average_length))
        return self._length_norms[1]

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
        entry = self._entries.pop(document_id, None)
        if entry is None:
            return False
        self._index.remove(document_id, lambda: _indexed_terms(entry.document))
        return True

    def _purge_expired(self, now: float) -> None:
        entries, ttl = self._entries, self._ttl
        while ttl is not None and entries:
            oldest_id, oldest = next(iter(entries.items()))
            if now - oldest.last_access < ttl:
                break
            self._unindex(oldest_id)
            self._expired += 1

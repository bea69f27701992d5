"""The knowledge-base interface and its in-memory TF-IDF implementation (SPEC §4).

:class:`KnowledgeBase` is the store contract. Its default ``replace_documents`` removes and then
adds one document at a time, so a concurrent reader of such a store can see a mix of the old and
the new set; :class:`InMemoryKnowledgeBase` overrides it and holds its lock across the whole swap.

TF-IDF as SPEC §4 fixes it: terms are SPEC §2 steps 1-2 (no stemming, no synonyms),
tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1, both vectors L2-normalised, score = cosine.
Query terms that no document contains are left out of the query vector (as a fitted vocabulary
would), which changes no ranking. The index stores each posting's tf weight; scoring is
vectorised over each query term's postings (:mod:`ragls.core.postings`) with MaxScore pruning
(:mod:`ragls.core.pruning`; a term can add at most its query weight over the query norm to a
cosine, since a document's weight for the term is part of that document's norm). Document norms
are kept up to date incrementally (:mod:`ragls.core.tfidf_norms`).
"""

from __future__ import annotations

import builtins
import functools
import math
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

from ragls.core.analyzer import plain_term_counts, plain_terms
from ragls.core.batches import EncodedBatch, analyze_documents, describes, latest_by_id
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
from ragls.core.tfidf_norms import CosineNorms
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k, most_specific


def tfidf_tf(count: int) -> float:
    """Sublinear term frequency: 1 + ln(count)."""
    return 1.0 + math.log(count)


def tfidf_idf(document_count: int, document_frequency: int) -> float:
    """Smoothed inverse document frequency: ln((1 + N) / (1 + df)) + 1."""
    return math.log((1.0 + document_count) / (1.0 + document_frequency)) + 1.0


class KnowledgeBase(ABC):
    """A document store that can also be searched."""

    @abstractmethod
    def add(self, document: Document) -> None:
        """Add a document, replacing one with the same id."""

    @abstractmethod
    def get(self, document_id: str) -> Document | None:
        """The document with that id, or None."""

    @abstractmethod
    def remove(self, document_id: str) -> bool:
        """Remove a document; False if there was none with that id."""

    @abstractmethod
    def list(self) -> builtins.list[Document]:
        """Every document, in insertion order."""

    @abstractmethod
    def search(self, query: str, top_k: int) -> builtins.list[SearchResult]:
        """The ``top_k`` best documents for ``query``, best first."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every document."""

    @abstractmethod
    def __len__(self) -> int: ...

    @property
    def wants_analysis(self) -> bool:
        """Whether :meth:`replace_documents` makes use of a shared pre-analysis (so an indexer
        need not compute one for this store)."""
        return False

    def replace_documents(
        self,
        remove_ids: Iterable[str],
        add: Iterable[Document],
        analyzed: EncodedBatch | None = None,
    ) -> None:
        """Remove then add, one call at a time: NOT atomic, readers may see a mix (SPEC §4).
        ``analyzed`` is an optional pre-analysis of ``add`` a store may use; this one does not."""
        for document_id in list(remove_ids):
            self.remove(document_id)
        for document in list(add):
            self.add(document)


# A change of at most this many documents updates the norms in place; a larger one rebuilds them.
INCREMENTAL_MAX_DOCUMENTS = 2_000


class InMemoryKnowledgeBase(KnowledgeBase):
    """Documents in memory, searched by TF-IDF cosine over an inverted index.

    ``index_on_demand``: keep the documents only, and build the TF-IDF index on the first
    search (then keep it up to date). A session whose pipeline does not search TF-IDF (the
    workspace pipeline) then pays neither the analysis nor the memory of an index it never
    reads, and a later switch to a pipeline that does finds it built on first use.
    """

    def __init__(self, *, index_on_demand: bool = False) -> None:
        self._lock = threading.RLock()
        self._documents: dict[str, Document] = {}
        self._index = InvertedIndex(_tf_array)
        self._norms = CosineNorms()
        self._indexed = not index_on_demand
        self.last_search = PruningStats()

    @property
    def wants_analysis(self) -> bool:
        return self._indexed

    @property
    def norms(self) -> CosineNorms:
        """The cosine norms' upkeep, for inspection: ``rebuilds`` and ``postings_updated`` count
        the work edits cost (tests assert that a save touches no other document)."""
        return self._norms

    @property
    def indexed(self) -> bool:
        """Whether the TF-IDF index exists (always, unless ``index_on_demand`` and unsearched)."""
        return self._indexed

    def _ensure_index(self) -> None:
        """Build the deferred index from every held document (lock held)."""
        if self._indexed:
            return
        self._indexed = True
        documents = builtins.list(self._documents.values())
        self._documents.clear()
        self.replace_documents((), documents)

    def add(self, document: Document) -> None:
        self.replace_documents((), (document,))

    def get(self, document_id: str) -> Document | None:
        with self._lock:
            return self._documents.get(document_id)

    def remove(self, document_id: str) -> bool:
        with self._lock:
            if document_id not in self._documents:
                return False
            self.replace_documents((document_id,), ())
            return True

    def list(self) -> builtins.list[Document]:
        with self._lock:
            return builtins.list(self._documents.values())

    def clear(self) -> None:
        with self._lock:
            self._documents.clear()
            self._index.clear()
            self._norms.invalidate()

    def __len__(self) -> int:
        with self._lock:
            return len(self._documents)

    def replace_documents(
        self,
        remove_ids: Iterable[str],
        add: Iterable[Document],
        analyzed: EncodedBatch | None = None,
    ) -> None:
        """Atomic: the lock is held from the first removal to the last addition. ``analyzed``,
        if given, is :func:`~ragls.core.batches.analyze_documents` of ``add``."""
        removals = builtins.list(remove_ids)
        additions = builtins.list(add)
        latest = latest_by_id(additions)
        with self._lock:
            if not self._indexed:  # documents only, until the first search
                for document_id in removals:
                    self._documents.pop(document_id, None)
                for document in latest.values():
                    self._documents.pop(document.id, None)
                    self._documents[document.id] = document
                return
        large = len(latest) > INCREMENTAL_MAX_DOCUMENTS
        # Analysed outside the lock; a large batch straight into arrays (ragls.core.batches).
        encoded = None
        if large:
            aligned = describes(analyzed, additions, len(latest))
            encoded = analyzed if aligned else analyze_documents(builtins.list(latest.values()))
        prepared = [] if large else [(d, plain_term_counts(d.content)) for d in latest.values()]
        with self._lock:
            index, norms = self._index, self._norms
            gone = [i for i in dict.fromkeys((*removals, *latest)) if i in self._documents]
            terms_of = {
                i: builtins.list(plain_term_counts(self._documents[i].content)) for i in gone
            }
            before: dict[str, int] = {}
            incremental = (
                not large
                and norms.current(index)
                and len(prepared) + len(gone) <= INCREMENTAL_MAX_DOCUMENTS
            )
            if incremental:
                for terms in (*terms_of.values(), *(counts for _, counts in prepared)):
                    for term in terms:
                        if term not in before:
                            before[term] = index.document_frequency(term)
            else:
                norms.invalidate()
            for document_id in gone:
                del self._documents[document_id]
                index.remove(document_id, functools.partial(terms_of.__getitem__, document_id))
            for document in latest.values():
                self._documents[document.id] = document
            if encoded is not None:
                index.add_encoded(encoded)
            else:
                index.add_many([(document.id, counts, 0.0) for document, counts in prepared])
            if incremental:
                added = [
                    (index.slot_of(d.id), list(counts), _tf_weights(counts))
                    for d, counts in prepared
                ]
                norms.apply(index, before, added)  # type: ignore[arg-type]

    def export_state(self) -> StreamState:
        """The store as plain values (SPEC §11): document ids in order, and the TF-IDF index if
        it is built (the cosine norms are rebuilt on the first search after a restore)."""
        with self._lock:
            index = self._index.export_state() if self._indexed else None
            return StreamState("tfidf", builtins.list(self._documents), index)

    def restore_state(self, state: StreamState, documents: Mapping[str, Document]) -> None:
        """Hold what ``state`` describes, documents from ``documents``; KeyError/ValueError if
        they do not fit (nothing changes then). Without an index the index is deferred."""
        if state.kind != "tfidf":
            raise ValueError(f"a {state.kind!r} stream's state cannot restore the knowledge base")
        index = None if state.index is None else restored_index(state, "tfidf", _tf_array)
        held = {i: documents[i] for i in state.ids}
        with self._lock:
            self._documents = held
            self._index = index if index is not None else InvertedIndex(_tf_array)
            self._indexed = index is not None
            self._norms.invalidate()

    def search(self, query: str, top_k: int) -> builtins.list[SearchResult]:
        check_top_k(top_k, MAX_STREAM_TOP_K)
        query_counts = _count(plain_terms(check_query(query)))
        if not query_counts:
            return []
        with self._lock:
            self._ensure_index()
            index = self._index
            if len(index) == 0:
                return []
            kept = most_specific(list(query_counts), index.document_frequency)
            query_terms = self._query_terms({term: query_counts[term] for term in kept})
            if not query_terms:
                return []
            self.last_search = stats = PruningStats()
            ranked = ranked_ids(query_terms, index, top_k, stats)
            return [SearchResult(self._documents[doc_id], score) for score, doc_id in ranked]

    # -- internals (lock held) -----------------------------------------------------------------

    def _query_terms(self, query_counts: dict[str, int]) -> builtins.list[QueryTerm]:
        """The cosine as a sum over query terms: (query weight x idf / query norm) x the
        document's tf weight / the document's norm."""
        index = self._index
        document_count = len(index)
        weighted = []
        for term, count in query_counts.items():
            frequency = index.document_frequency(term)
            if frequency == 0:
                continue
            idf = tfidf_idf(document_count, frequency)
            weighted.append((term, tfidf_tf(count) * idf, idf))
        query_norm = math.sqrt(sum(weight * weight for _, weight, _ in weighted))
        if query_norm == 0.0:
            return []
        inverse_norms = self._norms.inverse(index)
        query_terms = []
        for term, weight, idf in weighted:
            scale = weight * idf / query_norm

            def weigh(slots: SlotArray, tf: ValueArray, scale: float = scale) -> FloatArray:
                return scaled(tf, scale) * inverse_norms[slots]

            query_terms.append(QueryTerm(index.parts(term), weigh, weight / query_norm))
        return query_terms


def _tf_array(counts: FloatArray) -> FloatArray:
    """:func:`tfidf_tf` vectorised: the value the index stores per posting."""
    return 1.0 + np.log(counts)


def _tf_weights(counts: dict[str, int]) -> ValueArray:
    """The stored (float32) tf weights of one document's terms, in the counts' order."""
    return _tf_array(np.fromiter(counts.values(), np.float64, len(counts))).astype(np.float32)


def _count(terms: Iterable[str]) -> dict[str, int]:
    return Counter(terms)


class KnowledgeBaseStream:
    """Adapts a :class:`KnowledgeBase` to a retrieval stream for HybridRetriever."""

    def __init__(self, knowledge_base: KnowledgeBase, *, name: str = "tfidf") -> None:
        self._knowledge_base = knowledge_base
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def knowledge_base(self) -> KnowledgeBase:
        return self._knowledge_base

    def search(self, query: str, top_k: int) -> builtins.list[SearchResult]:
        return self._knowledge_base.search(query, top_k)

"""The knowledge-base interface and its in-memory TF-IDF implementation (SPEC §4).

:class:`KnowledgeBase` is the store contract. Its default ``replace_documents`` removes and then
adds one document at a time, so a concurrent reader of such a store can see a mix of the old and
the new set; :class:`InMemoryKnowledgeBase` overrides it and holds its lock across the whole swap.

TF-IDF as SPEC §4 fixes it: terms are SPEC §2 steps 1-2 (no stemming, no synonyms),
tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1, both vectors L2-normalised, score = cosine.
Query terms that no document contains are left out of the query vector (as a fitted vocabulary
would), which changes no ranking. Scoring is vectorised over each query term's postings
(:mod:`ragls.core.postings`). Document norms depend on every idf, so they are recomputed
lazily, once per change of the corpus, on the next search (one vectorised pass over the terms).
"""

from __future__ import annotations

import builtins
import math
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable

import numpy as np

from ragls.core.analyzer import plain_term_counts, plain_terms
from ragls.core.documents import Document, SearchResult
from ragls.core.postings import FloatArray, InvertedIndex, top_slots
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k


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

    def replace_documents(self, remove_ids: Iterable[str], add: Iterable[Document]) -> None:
        """Remove then add, one call at a time: NOT atomic, readers may see a mix (SPEC §4)."""
        for document_id in list(remove_ids):
            self.remove(document_id)
        for document in list(add):
            self.add(document)


class InMemoryKnowledgeBase(KnowledgeBase):
    """Documents in memory, searched by TF-IDF cosine over an inverted index."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._documents: dict[str, Document] = {}
        self._index = InvertedIndex()
        self._norms: FloatArray | None = None

    def add(self, document: Document) -> None:
        self.replace_documents((), (document,))

    def get(self, document_id: str) -> Document | None:
        with self._lock:
            return self._documents.get(document_id)

    def remove(self, document_id: str) -> bool:
        with self._lock:
            return self._unindex(document_id)

    def list(self) -> builtins.list[Document]:
        with self._lock:
            return builtins.list(self._documents.values())

    def clear(self) -> None:
        with self._lock:
            self._documents.clear()
            self._index.clear()
            self._norms = None

    def __len__(self) -> int:
        with self._lock:
            return len(self._documents)

    def replace_documents(self, remove_ids: Iterable[str], add: Iterable[Document]) -> None:
        """Atomic: the lock is held from the first removal to the last addition."""
        removals = builtins.list(remove_ids)
        # Raw counts are stored (small ints are shared objects, floats are not); tf = 1 + ln(count)
        # is applied to the arrays when scoring.
        prepared = [(document, plain_term_counts(document.content)) for document in add]
        with self._lock:
            for document_id in removals:
                self._unindex(document_id)
            for document, counts in prepared:
                self._unindex(document.id)
                self._documents[document.id] = document
                self._index.add(document.id, counts, 0.0)
                self._norms = None

    def search(self, query: str, top_k: int) -> builtins.list[SearchResult]:
        check_top_k(top_k, MAX_STREAM_TOP_K)
        query_counts = _count(plain_terms(check_query(query)))
        if not query_counts:
            return []
        with self._lock:
            index = self._index
            document_count = len(index)
            if document_count == 0:
                return []
            norms = self._document_norms()
            dots = np.zeros(index.slot_count)
            query_norm_squared = 0.0
            for term, count in query_counts.items():
                arrays = index.arrays(term)
                if arrays is None:
                    continue
                slots, counts = arrays
                idf = tfidf_idf(document_count, len(slots))
                query_weight = tfidf_tf(count) * idf
                query_norm_squared += query_weight * query_weight
                dots[slots] += query_weight * (1.0 + np.log(counts)) * idf  # tfidf_tf, vectorised
            if query_norm_squared == 0.0:
                return []
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = np.where(norms > 0.0, dots / (math.sqrt(query_norm_squared) * norms), 0.0)
            ranked = sorted(
                ((float(scores[slot]), index.id_at(slot)) for slot in top_slots(scores, top_k)),
                key=lambda item: (-item[0], item[1]),
            )[:top_k]
            return [SearchResult(self._documents[doc_id], score) for score, doc_id in ranked]

    # -- internals (lock held) -----------------------------------------------------------------

    def _unindex(self, document_id: str) -> bool:
        if self._documents.pop(document_id, None) is None:
            return False
        self._index.remove(document_id)
        self._norms = None
        return True

    def _document_norms(self) -> FloatArray:
        """Every slot's vector norm under the current idf, recomputed after any change in a few
        vectorised passes; only the terms that changed rebuild their posting arrays."""
        if self._norms is None:
            index = self._index
            postings = [index.arrays(term) for term in index.terms()]
            present = [arrays for arrays in postings if arrays is not None]
            if not present:
                self._norms = np.zeros(index.slot_count)
                return self._norms
            frequencies = np.fromiter((len(a[0]) for a in present), np.int64, len(present))
            idf = np.log((1.0 + len(index)) / (1.0 + frequencies)) + 1.0  # tfidf_idf, vectorised
            slots = np.concatenate([a[0] for a in present])
            tf_weights = 1.0 + np.log(np.concatenate([a[1] for a in present]))
            weights = tf_weights * np.repeat(idf, frequencies)
            squares = np.bincount(slots, weights=weights * weights, minlength=index.slot_count)
            self._norms = np.sqrt(squares)
        return self._norms


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

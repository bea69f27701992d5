"""The knowledge-base interface and its in-memory TF-IDF implementation (SPEC §4).

:class:`KnowledgeBase` is the store contract. Its default ``replace_documents`` removes and then
adds one document at a time, so a concurrent reader of such a store can see a mix of the old and
the new set; :class:`InMemoryKnowledgeBase` overrides it and holds its lock across the whole swap.

TF-IDF as SPEC §4 fixes it: terms are SPEC §2 steps 1-2 (no stemming, no synonyms),
tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1, both vectors L2-normalised, score = cosine.
Query terms that no document contains are left out of the query vector (as a fitted vocabulary
would), which changes no ranking. Document norms depend on every idf, so they are recomputed
lazily, once per change of the corpus, on the next search (cost: one pass over the postings).
"""

from __future__ import annotations

import builtins
import heapq
import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ragls.core.analyzer import plain_terms
from ragls.core.documents import Document, SearchResult
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
        self._term_counts: dict[str, dict[str, int]] = {}
        self._postings: dict[str, dict[str, float]] = {}
        self._norms: dict[str, float] | None = None

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
            self._term_counts.clear()
            self._postings.clear()
            self._norms = None

    def __len__(self) -> int:
        with self._lock:
            return len(self._documents)

    def replace_documents(self, remove_ids: Iterable[str], add: Iterable[Document]) -> None:
        """Atomic: the lock is held from the first removal to the last addition."""
        removals = builtins.list(remove_ids)
        prepared = [(document, _count(plain_terms(document.content))) for document in add]
        with self._lock:
            for document_id in removals:
                self._unindex(document_id)
            for document, counts in prepared:
                self._unindex(document.id)
                self._index(document, counts)

    def search(self, query: str, top_k: int) -> builtins.list[SearchResult]:
        check_top_k(top_k, MAX_STREAM_TOP_K)
        query_counts = _count(plain_terms(check_query(query)))
        if not query_counts:
            return []
        with self._lock:
            document_count = len(self._documents)
            if document_count == 0:
                return []
            norms = self._document_norms()
            dots: dict[str, float] = {}
            query_norm_squared = 0.0
            for term, count in query_counts.items():
                postings = self._postings.get(term)
                if not postings:
                    continue
                idf = tfidf_idf(document_count, len(postings))
                query_weight = tfidf_tf(count) * idf
                query_norm_squared += query_weight * query_weight
                for document_id, tf in postings.items():
                    dots[document_id] = dots.get(document_id, 0.0) + query_weight * tf * idf
            if not dots:
                return []
            query_norm = math.sqrt(query_norm_squared)
            scored = ((doc_id, dot / (query_norm * norms[doc_id])) for doc_id, dot in dots.items())
            ranked = heapq.nsmallest(top_k, scored, key=lambda item: (-item[1], item[0]))
            return [SearchResult(self._documents[doc_id], score) for doc_id, score in ranked]

    # -- internals (lock held) -----------------------------------------------------------------

    def _index(self, document: Document, counts: dict[str, int]) -> None:
        self._documents[document.id] = document
        self._term_counts[document.id] = counts
        for term, count in counts.items():
            self._postings.setdefault(term, {})[document.id] = tfidf_tf(count)
        self._norms = None

    def _unindex(self, document_id: str) -> bool:
        if self._documents.pop(document_id, None) is None:
            return False
        for term in self._term_counts.pop(document_id):
            postings = self._postings[term]
            del postings[document_id]
            if not postings:
                del self._postings[term]
        self._norms = None
        return True

    def _document_norms(self) -> dict[str, float]:
        if self._norms is None:
            document_count = len(self._documents)
            squares: dict[str, float] = dict.fromkeys(self._documents, 0.0)
            for postings in self._postings.values():
                idf = tfidf_idf(document_count, len(postings))
                for document_id, tf in postings.items():
                    weight = tf * idf
                    squares[document_id] += weight * weight
            self._norms = {doc_id: math.sqrt(value) for doc_id, value in squares.items()}
        return self._norms


def _count(terms: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts


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

"""The inverted index: slots reuse, cached arrays, and searches that touch only their terms."""

from __future__ import annotations

import numpy as np
import pytest

from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.core.postings import InvertedIndex, top_slots


def test_slots_are_reused_and_arrays_follow_changes() -> None:
    index = InvertedIndex()
    index.add("a", {"x": 1.0, "y": 2.0}, 3.0)
    index.add("b", {"x": 5.0}, 1.0)
    slots, values = index.arrays("x")  # type: ignore[misc]
    assert sorted(zip(slots.tolist(), values.tolist(), strict=True)) == [(0, 1.0), (1, 5.0)]
    assert index.remove("a") is True
    assert index.arrays("y") is None
    assert index.total_length == 1.0
    index.add("c", {"x": 7.0}, 2.0)
    assert index.slot_of("c") == 0  # the freed slot
    slots, values = index.arrays("x")  # type: ignore[misc]
    assert sorted(values.tolist()) == [5.0, 7.0]
    assert index.slot_count == 2


def test_lengths_grow_past_the_initial_capacity() -> None:
    index = InvertedIndex()
    for i in range(100):
        index.add(f"d{i}", {"t": 1.0}, float(i))
    assert index.lengths[99] == 99.0
    assert len(index) == 100


def test_top_slots_keep_ties_at_the_boundary() -> None:
    scores = np.array([0.0, 3.0, 1.0, 1.0, 2.0])
    assert sorted(top_slots(scores, 2)) == [1, 4]
    assert sorted(top_slots(scores, 3)) == [1, 2, 3, 4]  # both 1.0s tie for third
    assert top_slots(np.zeros(3), 2) == []


class CountingIndex(InvertedIndex):
    requested: list[str]

    def arrays(self, term: str):  # type: ignore[no-untyped-def]
        self.requested.append(term)
        return super().arrays(term)


@pytest.fixture
def many_documents() -> list[Document]:
    return [Document(f"d{i}", f"common word{i} filler{i % 7} alpha") for i in range(500)]


def test_a_bm25_search_reads_only_the_postings_of_its_terms(many_documents: list[Document]) -> None:
    stream = BM25Stream()
    counting = CountingIndex()
    counting.requested = []
    stream._index = counting
    stream.replace_documents((), many_documents)
    stream.search("alpha word7", 5)
    assert sorted(counting.requested) == ["alpha", "word7"]


def test_a_tfidf_search_reads_only_its_terms_once_norms_are_known(
    many_documents: list[Document],
) -> None:
    kb = InMemoryKnowledgeBase()
    counting = CountingIndex()
    counting.requested = []
    kb._index = counting
    kb.replace_documents((), many_documents)
    kb.search("warm", 5)  # computes the norms once: one pass over every term
    counting.requested.clear()
    kb.search("alpha word7", 5)
    assert sorted(counting.requested) == ["alpha", "word7"]

from __future__ import annotations

import math
import threading

import pytest

from ragls.core.documents import Document, SearchResult
from ragls.core.knowledge_base import (
    InMemoryKnowledgeBase,
    KnowledgeBase,
    KnowledgeBaseStream,
    tfidf_idf,
    tfidf_tf,
)


def test_tf_and_idf_formulas() -> None:
    assert tfidf_tf(1) == 1.0
    assert tfidf_tf(3) == pytest.approx(1 + math.log(3))
    assert tfidf_idf(4, 1) == pytest.approx(math.log(5 / 2) + 1)


def test_cosine_scores_match_hand_computed_values() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "apple apple banana"))
    kb.add(Document("d2", "banana cherry"))
    results = {r.id: r.score for r in kb.search("apple", 5)}
    idf_apple = math.log(3 / 2) + 1
    idf_banana = math.log(3 / 3) + 1
    w_apple = (1 + math.log(2)) * idf_apple
    w_banana = 1 * idf_banana
    # Query vector (apple) is a unit vector along apple: cosine = d1's normalised apple weight.
    assert results == {"d1": pytest.approx(w_apple / math.hypot(w_apple, w_banana))}


def test_tfidf_does_not_stem_and_has_no_synonyms() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "running database"))
    assert kb.search("run", 5) == []
    assert kb.search("db", 5) == []
    assert [r.id for r in kb.search("running", 5)] == ["d1"]


def test_a_perfect_match_scores_one() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "alpha beta"))
    kb.add(Document("d2", "gamma"))
    [result] = kb.search("beta alpha", 5)
    assert result.score == pytest.approx(1.0)


def test_management_operations() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "one"))
    kb.add(Document("d2", "two"))
    assert kb.get("d1") == Document("d1", "one")
    assert kb.get("nope") is None
    assert [d.id for d in kb.list()] == ["d1", "d2"]
    assert kb.remove("d1") is True
    assert kb.remove("d1") is False
    assert kb.search("one", 5) == []
    kb.clear()
    assert len(kb) == 0


def test_norms_follow_corpus_changes() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "alpha beta"))
    first = kb.search("alpha", 1)[0].score
    kb.add(Document("d2", "beta"))  # beta's idf drops, so d1 leans more towards alpha
    assert kb.search("alpha", 1)[0].score > first


class DefaultReplaceKnowledgeBase(KnowledgeBase):
    """A store that keeps the interface's default (non-atomic) replace_documents."""

    def __init__(self) -> None:
        self.inner = InMemoryKnowledgeBase()
        self.probe: list[set[str]] = []

    def add(self, document: Document) -> None:
        self.probe.append({d.id for d in self.inner.list()})
        self.inner.add(document)

    def get(self, document_id: str) -> Document | None:
        return self.inner.get(document_id)

    def remove(self, document_id: str) -> bool:
        self.probe.append({d.id for d in self.inner.list()})
        return self.inner.remove(document_id)

    def list(self) -> list[Document]:
        return self.inner.list()

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        return self.inner.search(query, top_k)

    def clear(self) -> None:
        self.inner.clear()

    def __len__(self) -> int:
        return len(self.inner)


def test_interface_default_replace_lets_readers_see_a_mix() -> None:
    kb = DefaultReplaceKnowledgeBase()
    for i in range(3):
        kb.inner.add(Document(f"old{i}", "x"))
    kb.replace_documents(["old0", "old1", "old2"], [Document("new0", "y"), Document("new1", "y")])
    old, new = {"old0", "old1", "old2"}, {"new0", "new1"}
    assert {d.id for d in kb.list()} == new
    # Between its single steps, a reader saw sets that are neither generation.
    assert any(seen not in (old, new, set()) for seen in kb.probe)


def test_in_memory_replace_is_atomic_for_concurrent_readers() -> None:
    kb = InMemoryKnowledgeBase()
    gen_a = [Document(f"a{i}", f"needle {i}") for i in range(50)]
    gen_b = [Document(f"b{i}", f"needle {i}") for i in range(50)]
    kb.replace_documents((), gen_a)
    ids_a, ids_b = {d.id for d in gen_a}, {d.id for d in gen_b}
    stop = threading.Event()
    observed: list[set[str]] = []

    def writer() -> None:
        current, other = gen_a, gen_b
        for _ in range(100):
            kb.replace_documents([d.id for d in current], other)
            current, other = other, current
        stop.set()

    def reader() -> None:
        while not stop.is_set():
            observed.append({r.id for r in kb.search("needle", 100)})
            observed.append({d.id for d in kb.list()})

    threads = [threading.Thread(target=reader) for _ in range(3)] + [
        threading.Thread(target=writer)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert observed
    assert [seen for seen in observed if seen not in (ids_a, ids_b)] == []


def test_stream_adapter_delegates_to_the_knowledge_base() -> None:
    kb = InMemoryKnowledgeBase()
    kb.add(Document("d1", "hello world"))
    stream = KnowledgeBaseStream(kb)
    assert stream.name == "tfidf"
    assert [r.id for r in stream.search("hello", 3)] == ["d1"]


def test_an_on_demand_index_is_built_by_the_first_search_and_kept_up_to_date() -> None:
    kb = InMemoryKnowledgeBase(index_on_demand=True)
    kb.replace_documents((), [Document(f"d{i}", f"note {i} shared") for i in range(3_000)])
    kb.add(Document("late", "a quokka appears"))
    kb.remove("d7")
    assert not kb.indexed and not kb.wants_analysis and len(kb) == 3_000
    assert [r.id for r in kb.search("quokka", 5)] == ["late"]
    assert kb.indexed and kb.wants_analysis
    assert kb.search("note 7", 1)[0].id != "d7"  # removed before the index existed
    kb.add(Document("later", "a wombat appears"))
    assert [r.id for r in kb.search("wombat", 5)] == ["later"]
    assert [d.id for d in kb.list()][:2] == ["d0", "d1"]  # insertion order kept


def test_an_on_demand_index_scores_like_an_eager_one() -> None:
    documents = [
        Document(f"d{i}", f"alpha beta {'gamma ' * (i % 5)}delta{i % 13}") for i in range(500)
    ]
    eager, lazy = InMemoryKnowledgeBase(), InMemoryKnowledgeBase(index_on_demand=True)
    for kb in (eager, lazy):
        kb.replace_documents((), documents)
    for query in ("gamma", "delta3 alpha", "beta gamma delta7"):
        assert [(r.id, r.score) for r in lazy.search(query, 10)] == [
            (r.id, r.score) for r in eager.search(query, 10)
        ]

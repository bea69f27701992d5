"""MaxScore pruning gives exactly the unpruned top k, and skips the common terms' postings."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from ragls.core import pruning
from ragls.core.analyzer import analyze, plain_terms
from ragls.core.bm25 import BM25Parameters, BM25Stream, bm25_idf, bm25_term_score
from ragls.core.documents import Document
from ragls.core.knowledge_base import InMemoryKnowledgeBase, tfidf_idf, tfidf_tf

VOCABULARY = [f"word{i}" for i in range(400)]
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(VOCABULARY))]


def _corpus(count: int, seed: int) -> list[Document]:
    rng = random.Random(seed)
    return [
        Document(f"d{i:05d}", " ".join(rng.choices(VOCABULARY, WEIGHTS, k=rng.randint(3, 40))))
        for i in range(count)
    ]


def _queries(seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(VOCABULARY, WEIGHTS, k=rng.randint(1, 8))) for _ in range(60)]


def reference_bm25(documents: list[Document], query: str, top_k: int) -> list[tuple[str, float]]:
    counts = {d.id: Counter(analyze(d.content)) for d in documents}
    lengths = {d_id: sum(c.values()) for d_id, c in counts.items()}
    average = sum(lengths.values()) / len(lengths)
    scores: dict[str, float] = {}
    for term in analyze(query, query=True):
        frequency = sum(1 for c in counts.values() if term in c)
        if not frequency:
            continue
        idf = bm25_idf(len(documents), frequency)
        for d_id, c in counts.items():
            if term in c:
                scores[d_id] = scores.get(d_id, 0.0) + bm25_term_score(
                    c[term], lengths[d_id], average, idf, BM25Parameters()
                )
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top_k]


def reference_cosine(documents: list[Document], query: str, top_k: int) -> list[tuple[str, float]]:
    counts = {d.id: Counter(plain_terms(d.content)) for d in documents}
    frequency = Counter(term for c in counts.values() for term in c)
    n = len(documents)

    def vector(c: Counter[str]) -> dict[str, float]:
        return {t: tfidf_tf(k) * tfidf_idf(n, frequency[t]) for t, k in c.items() if frequency[t]}

    q = vector(Counter(plain_terms(query)))
    q_norm = math.sqrt(sum(v * v for v in q.values()))
    scores = {}
    for d_id, c in counts.items():
        v = vector(c)
        dot = sum(q[t] * v[t] for t in q if t in v)
        if dot > 0:
            scores[d_id] = dot / (q_norm * math.sqrt(sum(x * x for x in v.values())))
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top_k]


def _same(found: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert [i for i, _ in found] == [i for i, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected], rel=1e-5)


@pytest.fixture
def prune_early(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pruning, "CHECK_MIN_POSTINGS", 1)


@pytest.mark.usefixtures("prune_early")
def test_pruned_bm25_equals_the_formula_over_every_document() -> None:
    documents = _corpus(1_500, seed=1)
    stream = BM25Stream(max_documents=10_000)
    stream.replace_documents((), documents)
    pruned = 0
    for query in _queries(seed=2):
        found = [(r.id, r.score) for r in stream.search(query, 10)]
        _same(found, reference_bm25(documents, query, 10))
        pruned += stream.last_search.pruned
    assert pruned > 10  # the comparison above covered pruned searches


@pytest.mark.usefixtures("prune_early")
def test_pruned_cosine_equals_the_formula_over_every_document() -> None:
    documents = _corpus(1_500, seed=3)
    kb = InMemoryKnowledgeBase()
    kb.replace_documents((), documents)
    pruned = 0
    for query in _queries(seed=4):
        found = [(r.id, r.score) for r in kb.search(query, 10)]
        _same(found, reference_cosine(documents, query, 10))
        pruned += kb.last_search.pruned
    assert pruned > 10


@pytest.mark.usefixtures("prune_early")
def test_incremental_edits_score_like_a_fresh_build() -> None:
    """Saves, deletions and additions, one small commit at a time, against both formulas."""
    rng = random.Random(5)
    documents = {d.id: d for d in _corpus(800, seed=6)}
    kb, stream = InMemoryKnowledgeBase(), BM25Stream(max_documents=10_000)
    kb.replace_documents((), list(documents.values()))
    stream.replace_documents((), list(documents.values()))
    extra = iter(_corpus(300, seed=7))
    for step in range(60):
        removed = rng.sample(sorted(documents), rng.randint(0, 3))
        added = [Document(d.id + f"-new{step}", d.content) for d in [next(extra)]]
        edited = [
            Document(i, documents[i].content + " word3 word9")
            for i in rng.sample(sorted(set(documents) - set(removed)), 2)
        ]
        for document_id in removed:
            del documents[document_id]
        for document in (*added, *edited):
            documents[document.id] = document
        kb.replace_documents(removed, [*added, *edited])
        stream.replace_documents(removed, [*added, *edited])
    final = list(documents.values())
    for query in _queries(seed=8)[:25]:
        _same([(r.id, r.score) for r in kb.search(query, 10)], reference_cosine(final, query, 10))
        _same([(r.id, r.score) for r in stream.search(query, 10)], reference_bm25(final, query, 10))


def test_a_rare_term_beside_a_ubiquitous_one_skips_most_of_the_common_postings() -> None:
    documents = [Document(f"d{i}", f"common filler{i % 50} unique{i}") for i in range(60_000)]
    stream = BM25Stream(max_documents=100_000)
    stream.replace_documents((), documents)
    kb = InMemoryKnowledgeBase()
    kb.replace_documents((), documents)
    for store in (stream, kb):
        results = store.search("unique123 unique456 common", 2)
        assert {r.id for r in results} == {"d123", "d456"}
        assert store.last_search.pruned
        assert store.last_search.postings_scored < 60_000 // 10


def test_a_save_that_keeps_document_frequencies_updates_no_other_norm() -> None:
    """An edit changing counts but not which terms a chunk holds: no pass over the corpus."""
    documents = [
        Document(f"d{i}", f"common shared{i % 10} own{i} more{i} words{i}") for i in range(5_000)
    ]
    kb = InMemoryKnowledgeBase()
    kb.replace_documents((), documents)
    kb.search("common", 1)
    norms = kb.norms
    rebuilds = norms.rebuilds
    edited = Document("d7", "common common shared7 own7 own7 more7 words7")
    kb.replace_documents(["d7"], [edited])
    kb.search("common", 1)
    assert norms.rebuilds == rebuilds and norms.postings_updated == 0
    added = Document("d-new", "common brandnew")  # N and df(common) change: common's postings
    kb.replace_documents((), [added])
    kb.replace_documents((), [Document("d-newer", "common brandnew")])
    kb.search("brandnew", 1)  # the two additions' df changes, caught up once
    # common: 5,000 base postings (the replaced d7's included) + 3 in the delta; brandnew: 2
    assert norms.rebuilds == rebuilds and norms.postings_updated == 5_005
    final = [d for d in documents if d.id != "d7"] + [edited, added]
    final.append(Document("d-newer", "common brandnew"))
    for query in ("own7 common", "brandnew", "shared3 common"):
        expected = reference_cosine(final, query, 5)
        _same([(r.id, r.score) for r in kb.search(query, 5)], expected)


def _ranked(store: BM25Stream, queries: list[str]) -> list[list[tuple[str, float]]]:
    return [[(r.id, r.score) for r in store.search(query, 10)] for query in queries]


def test_sparse_scoring_ranks_and_scores_exactly_as_the_dense_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short postings are summed without an array as long as the index: the same documents,
    the same floats (not merely close), deleted documents left out, ties at the boundary kept."""
    documents = _corpus(3_000, seed=11)
    documents += [Document(f"tie{i:02d}", "tiealpha tiebeta") for i in range(15)]
    stream = BM25Stream(max_documents=10_000)
    stream.replace_documents((), documents)
    stream.replace_documents([d.id for d in documents[::7]], [])  # dead slots
    queries = [*_queries(seed=12), "tiealpha tiebeta", "word399", "word398 word3"]
    monkeypatch.setattr(pruning, "SPARSE_SHARE", 10**12)
    dense = _ranked(stream, queries)
    monkeypatch.setattr(pruning, "SPARSE_SHARE", 1)
    sparse = _ranked(stream, queries)
    assert sparse == dense
    alive = [d.id for n, d in enumerate(documents) if n % 7 and d.id.startswith("tie")]
    assert len(alive) > 10 and [i for i, _ in dense[-3]] == alive[:10]


def test_a_query_with_few_postings_allocates_nothing_as_long_as_the_index() -> None:
    import tracemalloc

    count = 100_000
    documents = [Document(f"d{i}", f"filler{i % 50} unique{i}") for i in range(count)]
    stream = BM25Stream(max_documents=200_000)
    stream.replace_documents((), documents)
    stream.search("unique5 unique7", 2)  # weighs and caches what it can
    tracemalloc.start()
    try:
        results = stream.search("unique5 unique7", 2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert {r.id for r in results} == {"d5", "d7"}
    assert peak < count * 8 // 4  # a float per slot would be 800 KB


@pytest.mark.usefixtures("prune_early")
def test_a_short_part_of_a_common_term_does_not_weigh_its_long_part_whole() -> None:
    """After a file changes, a common word's new postings sit in a short part of their own
    beside the long one; scoring the pruned candidates reads the short part whole, which must
    not weigh (and keep) every posting of the long one that pruning only probes."""
    weighed: list[int] = []
    kept: list[pruning.QueryTerm] = []

    def weigh(slots: pruning.SlotArray, values: pruning.ValueArray) -> pruning.FloatArray:
        weighed.append(len(slots))
        return values.astype(np.float64)

    def term(parts: list[tuple[list[int], list[float]]], bound: float) -> pruning.QueryTerm:
        arrays = [(np.array(s, np.int32), np.array(v, np.float32)) for s, v in parts]
        return pruning.QueryTerm(arrays, weigh, bound)

    count = 60_000
    rare = term([([5, 9, 70], [50.0, 40.0, 30.0])], 50.0)
    common = term([(list(range(count)), [1.0] * count), ([count, count + 1], [1.0, 1.0])], 1.0)
    common.on_weighed = kept.append  # a term worth keeping once weighed whole
    slots, scores, _ = pruning.top_and_pool([rare, common], count + 2, np.zeros(0, np.int32), 2)
    assert sorted(zip(slots.tolist(), scores.tolist(), strict=True)) == [(5, 51.0), (9, 41.0)]
    assert max(weighed) < 100  # the long part was looked up at the candidates only
    assert not kept
    # A search reading the long part whole weighs every part once and keeps them.
    weighed.clear()
    assert common.contributions(0).sum() == count and weighed == [count, 2]
    assert common.contributions(1).tolist() == [1.0, 1.0] and weighed == [count, 2]
    assert len(kept) == 1 and kept[0] is common

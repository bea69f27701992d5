"""Encoded batches: one analysis shared by both stores gives what each store's own gives."""

from __future__ import annotations

import random

from ragls.core.analyzer import plain_term_counts, term_counts
from ragls.core.batches import EncodedBatch, analyze_documents, stem_batch, tail
from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document
from ragls.core.knowledge_base import InMemoryKnowledgeBase

# Words whose stems collide (run/runs, connect/connection/connects...) within one document.
WORDS = "run runs running connect connection connects test tests testing the a data datas x".split()


def _documents(count: int) -> list[Document]:
    rng = random.Random(3)
    return [
        Document(f"d{i}", " ".join(rng.choices(WORDS, k=rng.randint(0, 30)))) for i in range(count)
    ]


def _as_dicts(batch: EncodedBatch) -> list[dict[str, float]]:
    found, position = [], 0
    for size in batch.sizes.tolist():
        terms = batch.terms[position : position + size].tolist()
        values = batch.values[position : position + size].tolist()
        found.append({batch.vocabulary[t]: v for t, v in zip(terms, values, strict=True)})
        position += size
    return found


def test_analysis_gives_each_documents_plain_counts_and_length() -> None:
    documents = _documents(200)
    batch = analyze_documents(documents)
    assert batch.ids == [d.id for d in documents]
    assert _as_dicts(batch) == [dict(plain_term_counts(d.content)) for d in documents]
    assert batch.lengths == [float(term_counts(d.content)[2]) for d in documents]


def test_stemming_a_batch_sums_the_terms_that_share_a_stem() -> None:
    documents = _documents(200)
    stemmed = stem_batch(analyze_documents(documents))
    assert _as_dicts(stemmed) == [term_counts(d.content)[1] for d in documents]


def test_tail_keeps_the_last_documents() -> None:
    documents = _documents(20)
    assert _as_dicts(tail(analyze_documents(documents), 5)) == _as_dicts(
        analyze_documents(documents[-5:])
    )


def test_stores_given_the_shared_analysis_search_as_they_would_alone() -> None:
    documents = _documents(3_000)
    analyzed = analyze_documents(documents)
    shared_bm25, own_bm25 = BM25Stream(max_documents=2_500), BM25Stream(max_documents=2_500)
    shared_bm25.replace_documents((), documents, analyzed)
    own_bm25.replace_documents((), documents)
    shared_kb, own_kb = InMemoryKnowledgeBase(), InMemoryKnowledgeBase()
    shared_kb.replace_documents((), documents, analyzed)
    own_kb.replace_documents((), documents)
    for query in ("running connection", "tests data", "run"):
        assert shared_bm25.search(query, 10) == own_bm25.search(query, 10)
        assert shared_kb.search(query, 10) == own_kb.search(query, 10)
    assert shared_bm25.stats() == own_bm25.stats()


def test_encoding_a_batch_leaves_no_reference_cycle_behind() -> None:
    """A batch's numbered vocabulary is freed as soon as the batch is made, not when the cyclic
    collector next runs (an index run keeps its objects from the collector)."""
    import gc

    from ragls.core.batches import concatenate
    from ragls.core.code_stream import encode_documents

    documents = [
        Document(f"d{i}", f"def parse_header{i}(raw_value): return raw_value.strip()", {})
        for i in range(50)
    ]
    gc.collect()
    gc.disable()
    try:
        batch = encode_documents(documents)
        joined = concatenate([batch, batch])
        stemmed = stem_batch(analyze_documents(documents))
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert len(joined) == 100 and len(stemmed) == 50 and "parse" in batch.vocabulary
    assert unreachable == 0

"""One retrieval system on exported chunks, in its own process (used by bench/peers.py).

    python bench/peer_worker.py SYSTEM CHUNKS.jsonl QUERIES.json

Prints JSON: index seconds, query latency percentiles (ms, single-threaded, top 10) and the
process's peak RSS. Systems: ragls-workspace (the daemon's and the CLI's default pipeline: the
code stream over the chunks' text and metadata asked for split and whole identifiers, then the
ranking layer, beside the knowledge base every session keeps; until 2026-12-05 this row was the
code stream alone),
ragls-hybrid (the seed pipeline: BM25 + TF-IDF + RRF),
ragls-bm25, bm25s (its own tokenizer, English stop words), bm25s-ragls (ragls's analyzer),
tantivy (in-RAM index, its default tokenizer), rank_bm25 (BM25Okapi on ragls's analyzer).
Memory: the peak RSS, and the RSS the built system holds beyond the loaded chunks (after its
queries): ragls's includes its Document objects (the text itself is shared with the loaded
strings), tantivy's index stores no text.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from typing import Any


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def rss_mb(field: str = "VmHWM") -> float:
    """This process's own high-water RSS (VmHWM), or its current one (VmRSS). ru_maxrss would
    not do: Linux carries it over from the parent across fork and exec, so every worker would
    report the parent's peak."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def build(
    system: str, texts: list[str], ids: list[str], metadata: list[dict[str, str]]
) -> Callable[[str], Any]:
    if system == "ragls-workspace":
        from ragls.core.documents import Document
        from ragls.core.knowledge_base import InMemoryKnowledgeBase
        from search_profile import build as build_workspace

        documents = [Document(i, t, m) for i, t, m in zip(ids, texts, metadata, strict=True)]
        # What a workspace session holds: the knowledge base (the store of record; its TF-IDF
        # index is built on first use, which this pipeline never makes) and the code stream,
        # searched as RagService.retriever_for builds it (both views, the ranking layer).
        kb = InMemoryKnowledgeBase(index_on_demand=True)
        kb.replace_documents((), documents)
        retriever = build_workspace(documents, "workspace")
        retriever.retrieve("warm up", 10)
        return lambda query: retriever.retrieve(query, 10)
    if system in ("ragls-hybrid", "ragls-bm25"):
        from ragls.core.batches import analyze_documents
        from ragls.core.bm25 import BM25Stream
        from ragls.core.documents import Document
        from ragls.core.fusion import HybridRetriever
        from ragls.core.knowledge_base import InMemoryKnowledgeBase, KnowledgeBaseStream

        documents = [Document(i, t) for i, t in zip(ids, texts, strict=True)]
        bm25 = BM25Stream(max_documents=max(len(documents), 1))
        if system == "ragls-bm25":
            bm25.replace_documents((), documents)
            return lambda query: bm25.search(query, 10)
        # As the indexer commits a large generation: one analysis shared by both stores.
        analyzed = analyze_documents(documents)
        bm25.replace_documents((), documents, analyzed)
        kb = InMemoryKnowledgeBase()
        kb.replace_documents((), documents, analyzed)
        del analyzed
        retriever = HybridRetriever([(bm25, 0.6), (KnowledgeBaseStream(kb), 0.4)])
        retriever.retrieve("warm up the norms", 10)
        return lambda query: retriever.retrieve(query, 10)
    if system in ("bm25s", "bm25s-ragls"):
        import bm25s

        retriever = bm25s.BM25()
        if system == "bm25s":
            retriever.index(
                bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False
            )
            return lambda query: retriever.retrieve(
                bm25s.tokenize([query], stopwords="en", show_progress=False),
                k=10,
                show_progress=False,
            )
        from ragls.core.analyzer import analyze

        retriever.index([analyze(text) or ["_"] for text in texts], show_progress=False)

        def search(query: str) -> Any:
            terms = [t for t in analyze(query, query=True) if t in retriever.vocab_dict]
            return (
                retriever.retrieve([terms or ["_"]], k=10, show_progress=False) if terms else None
            )

        return search
    if system == "tantivy":
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("body", stored=False)
        builder.add_integer_field("n", stored=True)
        index = tantivy.Index(builder.build())
        writer = index.writer(heap_size=500_000_000, num_threads=1)
        for number, text in enumerate(texts):
            writer.add_document(tantivy.Document(body=[text], n=[number]))
        writer.commit()
        index.reload()
        searcher = index.searcher()
        unsafe = re.compile(r"[^\w\s]")

        def search(query: str) -> Any:
            # Lower case: its tokenizer lower-cases anyway, and a word such as "NOT" or "AND"
            # would otherwise be read as an operator (a query ending in NOT is a syntax error).
            cleaned = unsafe.sub(" ", query).strip().lower() or "_"
            return searcher.search(index.parse_query(cleaned, ["body"]), 10).hits

        return search
    if system == "rank_bm25":
        from rank_bm25 import BM25Okapi

        from ragls.core.analyzer import analyze

        model = BM25Okapi([analyze(text) or ["_"] for text in texts])
        return lambda query: model.get_top_n(analyze(query, query=True), ids, n=10)
    raise SystemExit(f"unknown system {system}")


def main(system: str, chunks_path: str, queries_path: str) -> None:
    texts, ids, metadata = [], [], []
    with open(chunks_path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            ids.append(record["id"])
            texts.append(record["text"])
            metadata.append(record.get("metadata", {}))
    with open(queries_path, encoding="utf-8") as handle:
        queries: list[str] = json.loads(handle.read())
    if system == "rank_bm25":
        queries = queries[:40]  # it scores every document per query: a few suffice
    loaded = rss_mb("VmRSS")  # the chunks' text and ids, held by every system alike
    started = time.perf_counter()
    search = build(system, texts, ids, metadata)
    index_seconds = time.perf_counter() - started
    latencies = []
    for query in queries:
        began = time.perf_counter()
        search(query)
        latencies.append((time.perf_counter() - began) * 1000)
    print(
        json.dumps(
            {
                "system": system,
                "chunks": len(texts),
                "index_s": index_seconds,
                "p50_ms": percentile(latencies, 0.5),
                "p95_ms": percentile(latencies, 0.95),
                "p99_ms": percentile(latencies, 0.99),
                "queries": len(queries),
                "peak_rss_mb": rss_mb(),
                "index_rss_mb": rss_mb("VmRSS") - loaded,
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])

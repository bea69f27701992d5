"""Search latency of the workspace pipeline on exported chunks, with a profile (docs/benchmarks.md).

    python bench/search_profile.py CHUNKS.jsonl QUERIES.json [--repeats 3] [--profile N]
                                   [--pipeline workspace] [--dump OUT.json]

CHUNKS.jsonl and QUERIES.json are what ``make bench``'s scale section writes (``bench/peers.py``:
``export_chunks`` and ``make_queries``). The retriever is built as a session builds it
(:meth:`ragls.service.rag_service.RagService.retriever_for`: the code stream, its views, the
ranking layer), in one process. Each query is searched ``--repeats`` times and its fastest time
kept (the machine is shared: the minimum is the least noisy estimate of a query's cost); the
report gives the median and p95 over the queries. ``--profile N`` runs N passes over the
queries under cProfile and prints the top of the table by own time and by cumulative time.
``--dump`` writes every query's top 10 (id, score) so that two versions can be compared for
identical rankings.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time
from pathlib import Path

from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document
from ragls.core.fusion import HybridRetriever, StreamSpec
from ragls.core.ranking.layer import RankingLayer
from ragls.service.pipelines import pipeline_named


def load(chunks: Path) -> list[Document]:
    documents = []
    with chunks.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            documents.append(Document(record["id"], record["text"], record.get("metadata", {})))
    return documents


def build(documents: list[Document], name: str) -> HybridRetriever:
    """The retriever ``RagService.retriever_for`` builds for a code-stream pipeline."""
    pipeline = pipeline_named(name)
    code = CodeStream(weights=pipeline.fields)
    code.replace_documents((), documents)
    streams: list[StreamSpec] = []
    if pipeline.code > 0:
        streams.append((code, pipeline.code))
    if pipeline.words > 0:
        streams.append(
            (code.view(pipeline.word_fields, name="words"), pipeline.words, pipeline.words_kinds)
        )
    ranking = None
    if pipeline.ranking is not None:
        ranking = RankingLayer(pipeline.ranking, code.document_frequency, code.document_count)
    return HybridRetriever(streams, ranking=ranking)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chunks", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--pipeline", default="workspace")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="PASSES")
    parser.add_argument("--dump", type=Path)
    options = parser.parse_args()
    queries: list[str] = json.loads(options.queries.read_text(encoding="utf-8"))
    started = time.perf_counter()
    retriever = build(load(options.chunks), options.pipeline)
    print(f"built in {time.perf_counter() - started:.1f} s; {len(queries)} queries")
    retriever.retrieve("warm up", 10)
    fastest = []
    for query in queries:
        times = []
        for _ in range(options.repeats):
            began = time.perf_counter()
            retriever.retrieve(query, 10)
            times.append((time.perf_counter() - began) * 1000)
        fastest.append(min(times))
    print(
        f"{options.pipeline}: min of {options.repeats} per query; median "
        f"{statistics.median(fastest):.3f} ms, p95 {percentile(fastest, 0.95):.3f} ms, "
        f"mean {statistics.fmean(fastest):.3f} ms"
    )
    if options.dump is not None:
        found = {
            query: [(r.document.id, round(r.score, 12)) for r in retriever.retrieve(query, 10)]
            for query in queries
        }
        options.dump.write_text(json.dumps(found, indent=0), encoding="utf-8")
    if options.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(options.profile):
            for query in queries:
                retriever.retrieve(query, 10)
        profiler.disable()
        for order in ("tottime", "cumulative"):
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats(order).print_stats(25)
            print(text.getvalue())


if __name__ == "__main__":
    main()

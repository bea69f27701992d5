"""ragls benchmarks (``make bench``; not part of ``make test``).

* core: the retrieval core on a deterministic synthetic corpus: building a BM25Stream and the
  service's stores, and query latency of BM25 alone, of the seed's hybrid search (BM25 + TF-IDF
  fused by RRF) and of the workspace pipeline's search (the code stream); latencies are
  percentiles over a fixed query set.
* scale: the standard library copied 1x, 4x and 16x (``bench/scale.py``): ragls as a user runs
  it (cold, warm and one-file-change index runs, search and context-prompt latency, memory),
  ragls beside bm25s, tantivy and rank_bm25 on the same chunks with the ratios, and the read and
  tokenize floors.
* daemon: a real ``ragls serve`` (``bench/daemon.py``): start to first answer, inotify watches on a
  workspace with a 2,000-package node_modules, and the delay from a save to searchable.
* team: the team index in a throwaway PostgreSQL beside the embedded store (``bench/team.py``):
  publish and load times, sizes, and search p50/p95 in memory and in the database, at 1x and
  16x the standard library.
Every figure is a median over repeated runs. Results are printed as Markdown tables and written
as JSON to bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService

RESULTS = Path(__file__).resolve().parent / "results"


def synthetic_corpus(documents: int, seed: int = 7) -> list[Document]:
    """Documents of 40-160 words drawn from a Zipf-like vocabulary of 20,000 identifiers."""
    rng = random.Random(seed)
    vocabulary = [f"w{index:05d}" for index in range(20_000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]
    corpus = []
    for index in range(documents):
        words = rng.choices(vocabulary, weights, k=rng.randint(40, 160))
        metadata = {"file": f"src/module_{index // 8}.py"}
        corpus.append(Document(f"src/module_{index // 8}.py:{index}", " ".join(words), metadata))
    return corpus


def queries(corpus: list[Document], count: int = 200, seed: int = 11) -> list[str]:
    """Queries of 2-6 words sampled from the corpus itself, so most have matches."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        words = rng.choice(corpus).content.split()
        start = rng.randrange(max(1, len(words) - 6))
        found.append(" ".join(words[start : start + rng.randint(2, 6)]))
    return found


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def latencies(search: Callable[[str], object], query_set: list[str]) -> list[float]:
    return [timed(lambda q=query: search(q)) * 1000 for query in query_set]


def bench_core(documents: int, repeats: int) -> dict[str, float]:
    corpus = synthetic_corpus(documents)
    query_set = queries(corpus)
    build_bm25, build_service, bm25_p50, bm25_p95, hybrid_p50, hybrid_p95 = ([] for _ in range(6))
    workspace_p50, workspace_p95 = [], []
    for _ in range(repeats):
        stream = BM25Stream.unbounded()
        build_bm25.append(timed(lambda s=stream: s.replace_documents((), corpus)))
        service = RagService()  # the seed pipeline, as a library user gets it
        build_service.append(timed(lambda s=service: [s.add_document(d.content) for d in corpus]))
        workspace = RagService(pipeline=WORKSPACE)  # as the daemon and the CLI search
        for document in corpus:
            workspace.add_document(document.content)
        samples = latencies(lambda q, s=workspace: s.search(q, 10), query_set)
        workspace_p50.append(percentile(samples, 0.5))
        workspace_p95.append(percentile(samples, 0.95))
        samples = latencies(lambda q, s=stream: s.search(q, 10), query_set)
        bm25_p50.append(percentile(samples, 0.5))
        bm25_p95.append(percentile(samples, 0.95))
        service.search(query_set[0], 10)  # first search computes the TF-IDF norms once
        samples = latencies(lambda q, s=service: s.search(q, 10), query_set)
        hybrid_p50.append(percentile(samples, 0.5))
        hybrid_p95.append(percentile(samples, 0.95))
    return {
        "documents": documents,
        "bm25_build_s": statistics.median(build_bm25),
        "bm25_docs_per_s": documents / statistics.median(build_bm25),
        "service_add_s": statistics.median(build_service),
        "bm25_search_p50_ms": statistics.median(bm25_p50),
        "bm25_search_p95_ms": statistics.median(bm25_p95),
        "hybrid_search_p50_ms": statistics.median(hybrid_p50),
        "hybrid_search_p95_ms": statistics.median(hybrid_p95),
        "workspace_search_p50_ms": statistics.median(workspace_p50),
        "workspace_search_p95_ms": statistics.median(workspace_p95),
    }


def _machine() -> str:
    cores = os.cpu_count()
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        total_kb = int(meminfo.readline().split()[1])
    return f"{cores} cores, {total_kb / 1024 / 1024:.0f} GiB, {platform.machine()}"


def markdown(rows: list[dict[str, float]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(_fmt(row[key]) for key in keys) + " |")
    return "\n".join(lines)


def _fmt(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated corpus sizes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scales", default="1,4,16", help="corpus replications (scale section)")
    parser.add_argument(
        "--scale-repeats",
        default="3,3,1",
        help="repeats per scale (the last one applies to any further scales)",
    )
    parser.add_argument("--team-scales", default="1,16", help="corpus replications (team)")
    parser.add_argument(
        "--team-repeats", default="3,1", help="repeats per team scale (the last one applies on)"
    )
    parser.add_argument(
        "--only",
        choices=["core", "scale", "daemon", "semantic", "team"],
        help="run one section",
    )
    parser.add_argument(
        "--semantic-scales", default="1,4", help="corpus replications (semantic section)"
    )
    parser.add_argument(
        "--semantic-repeats", default="3,1", help="repeats per semantic scale (the last applies on)"
    )
    args = parser.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    python = f"Python {sys.version.split()[0]}"
    if args.only in (None, "core"):
        rows = [bench_core(int(size), args.repeats) for size in args.sizes.split(",")]
        print(f"## Retrieval core (median of {args.repeats} runs; {python})")
        print(markdown(rows))
        (RESULTS / "core.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    if args.only in (None, "daemon"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from daemon import bench_daemon

        row = bench_daemon()
        print(f"\n## The daemon (saves: median and p95 of 40; {python})")
        print(markdown([row]))
        (RESULTS / "daemon.json").write_text(json.dumps(row, indent=2) + "\n", encoding="utf-8")
    if args.only in (None, "scale"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from scale import bench_scale
        from scale import markdown as scale_markdown

        print(f"\n## ragls at scale, beside its peers ({python}; {_machine()})")
        scales = [int(scale) for scale in args.scales.split(",")]
        repeats = [int(repeat) for repeat in args.scale_repeats.split(",")]
        results = []
        for position, scale in enumerate(scales):
            result = bench_scale(scale, repeats[min(position, len(repeats) - 1)])
            results.append(result)
            print(scale_markdown(result), flush=True)
            (RESULTS / "scale.json").write_text(
                json.dumps(results, indent=2) + "\n", encoding="utf-8"
            )
    if args.only in (None, "semantic"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from semantic import bench_semantic
        from semantic import markdown as semantic_markdown

        print(f"\n## The semantic stream ({python}; {_machine()})")
        repeats = [int(repeat) for repeat in args.semantic_repeats.split(",")]
        semantic_rows = []
        for position, scale in enumerate(int(s) for s in args.semantic_scales.split(",")):
            semantic_rows.append(bench_semantic(scale, repeats[min(position, len(repeats) - 1)]))
            print(semantic_markdown(semantic_rows[-1:]), flush=True)
            (RESULTS / "semantic.json").write_text(
                json.dumps(semantic_rows, indent=2) + "\n", encoding="utf-8"
            )
    if args.only in (None, "team"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from team import bench_team
        from team import markdown as team_markdown

        print(f"\n## The team index in PostgreSQL beside the embedded store ({python})")
        repeats = [int(repeat) for repeat in args.team_repeats.split(",")]
        team_rows = []
        for position, scale in enumerate(int(s) for s in args.team_scales.split(",")):
            team_rows.append(bench_team(scale, repeats[min(position, len(repeats) - 1)]))
            print(team_markdown(team_rows[-1:]), flush=True)
            (RESULTS / "team.json").write_text(
                json.dumps(team_rows, indent=2) + "\n", encoding="utf-8"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

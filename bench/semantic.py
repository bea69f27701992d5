"""The cost of the opt-in semantic stream (``make bench``'s semantic section).

    python bench/semantic.py ROOT QUERIES.json      # one measurement, in a fresh process

The corpus and the query set are the scale section's (the standard library copied ``scale``
times; 300 queries drawn from its chunks). One fresh process per repeat indexes the corpus with
the ``workspace-semantic`` pipeline and reports: the lexical index run (the time until search
answers, as with ``workspace``), the background embedding that follows (seconds, chunks per
second), the RSS the vectors add once settled (garbage collected, free heap returned), and
search latency of ``workspace`` and ``workspace-semantic`` over the same service and queries
(p50/p95/p99 in ms, single-threaded, top 10).
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return float(line.split()[1]) / 1024
    return float("nan")


def _settled_rss_mb() -> float:
    """RSS once garbage is collected and free heap pages are given back (what stays)."""
    from ragls.service.memory import release_free_memory

    gc.collect()
    release_free_memory()
    return _rss_mb()


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        f"p{p}_ms": ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
        for p in (50, 95, 99)
    }


def measure(root: Path, queries: list[str]) -> dict[str, Any]:
    from ragls.models.static import shared_embedder
    from ragls.service.pipelines import WORKSPACE, WORKSPACE_SEMANTIC
    from ragls.service.rag_service import RagService

    service = RagService(pipeline=WORKSPACE_SEMANTIC, also_serve=[WORKSPACE])
    shared_embedder().embed(["how is the model loaded?"])  # its table: once per process
    began = time.perf_counter()
    status = service.index_directory(root)
    lexical_s = time.perf_counter() - began
    before = _settled_rss_mb()
    began = time.perf_counter()
    service.wait_for_embeddings()
    embed_s = time.perf_counter() - began
    added_mb = _settled_rss_mb() - before
    result: dict[str, Any] = {
        "chunks": status.chunk_count,
        "lexical_index_s": lexical_s,
        "embedding_s": embed_s,
        "embedded_chunks_per_s": status.chunk_count / embed_s if embed_s > 0 else float("nan"),
        "vectors_rss_mb": added_mb,
        "vectors_kb_per_1k_chunks": 1024 * added_mb / max(1, status.chunk_count) * 1000,
    }
    for pipeline in (WORKSPACE, WORKSPACE_SEMANTIC):
        retriever = service.retriever_for(pipeline)
        samples = []
        for query in queries:
            started = time.perf_counter()
            retriever.retrieve(query, 10)
            samples.append((time.perf_counter() - started) * 1000)
        result[pipeline.name] = _percentiles(samples)
    return result


def bench_semantic(scale: int, repeats: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from peers import export_chunks, make_queries, run_script
    from scale import make_corpus

    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = make_corpus(base, scale)
        chunks, queries = base / "chunks.jsonl", base / "queries.json"
        export_chunks(root, chunks)
        make_queries(chunks, queries)
        runs = [run_script(Path(__file__), str(root), str(queries)) for _ in range(repeats)]
    row: dict[str, Any] = {"scale": scale, "repeats": repeats}
    for key in runs[0]:
        if isinstance(runs[0][key], dict):
            for name in runs[0][key]:
                row[f"{key} {name}"] = statistics.median(run[key][name] for run in runs)
        else:
            row[key] = statistics.median(run[key] for run in runs)
    return row


def markdown(rows: list[dict[str, Any]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        cells = [f"{row[k]:.3g}" if isinstance(row[k], float) else str(row[k]) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    root_arg, queries_arg = sys.argv[1], sys.argv[2]
    query_list = json.loads(Path(queries_arg).read_text(encoding="utf-8"))
    print(json.dumps(measure(Path(root_arg), query_list)))

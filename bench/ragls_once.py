"""One ragls service on a folder, in a fresh process; prints JSON (used by bench/scale.py).

    python bench/ragls_once.py ROOT QUERIES.json

The service runs as a user gets it from the daemon or the CLI (the workspace pipeline,
defaults): a cold index, a warm one with nothing changed, then five one-file changes (a line
appended to a mid-sized source file, indexed as a changed-paths run as the daemon's watcher
does) timed to the end of the run and to the first search that finds the new line; then
single-threaded ``search`` and ``build_context_prompt`` latency (top 10) over the query set.
Memory: the process's peak RSS (VmHWM), and the RSS the index added, per 1,000 chunks and
beyond the corpus's text.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ragls import RagService
from ragls.service.pipelines import WORKSPACE


def _status_kb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return float(line.split()[1])
    return float("nan")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _latencies(action: Callable[[str], object], queries: list[str]) -> dict[str, float]:
    samples = []
    for query in queries:
        began = time.perf_counter()
        action(query)
        samples.append((time.perf_counter() - began) * 1000)
    return {f"p{p}_ms": percentile(samples, p / 100) for p in (50, 95, 99)}


def _change_target(root: Path, files: list[str]) -> Path:
    """A deterministic mid-sized Python file of the index."""
    sized = sorted(((root / name).stat().st_size, name) for name in files if name.endswith(".py"))
    return root / sized[len(sized) // 2][1]


def main(root_arg: str, queries_path: str) -> None:
    root = Path(root_arg)
    queries: list[str] = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    rss_before = _status_kb("VmRSS")
    rag = RagService(pipeline=WORKSPACE)
    started = time.perf_counter()
    status = rag.index_directory(root)
    cold = time.perf_counter() - started
    report = rag.last_report
    assert report is not None
    rag.search("warm up", 10)
    rss_indexed = _status_kb("VmRSS")

    started = time.perf_counter()
    rag.index_directory(root)
    warm = time.perf_counter() - started
    warm_report = rag.last_report
    assert warm_report is not None

    target = _change_target(root, rag.indexed_files())
    original = target.read_bytes()
    change_runs, change_searchable = [], []
    try:
        for number in range(5):
            marker = f"zqxbenchmarker{number}"
            target.write_bytes(original + f"\n# {marker}\n".encode())
            began = time.perf_counter()
            rag.index_directory(root, changed_paths=[target])
            change_runs.append(time.perf_counter() - began)
            found = any(marker in r.content for r in rag.search(marker, 5))
            change_searchable.append(time.perf_counter() - began)
            assert found, f"{marker} not searchable after its changed-paths run"
    finally:
        target.write_bytes(original)

    search = _latencies(lambda q: rag.search(q, 10), queries)
    context = _latencies(lambda q: rag.build_context_prompt(q, 10), queries)
    added_mb = (rss_indexed - rss_before) / 1024
    text_mb = report.total_bytes / 1e6
    print(
        json.dumps(
            {
                "files": status.file_count,
                "chunks": status.chunk_count,
                "MB": report.total_bytes / 1e6,
                "cold_s": cold,
                "warm_s": warm,
                "warm_files_read": warm_report.files_read,
                "change_run_ms": statistics.median(change_runs) * 1000,
                "change_to_searchable_ms": statistics.median(change_searchable) * 1000,
                "change_file_kb": len(original) / 1024,
                "search": search,
                "context": context,
                "peak_rss_mb": _status_kb("VmHWM") / 1024,
                "index_rss_mb": added_mb,
                "rss_mb_per_1k_chunks": added_mb / status.chunk_count * 1000,
                "overhead_kb_per_chunk": (added_mb - text_mb) * 1024 / status.chunk_count,
                "searchable_chunks": rag.get_status().corpus_documents,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

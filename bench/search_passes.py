"""Search latency as the daemon sees it, pass after pass; prints JSON (docs/benchmarks.md).

    python bench/search_passes.py ROOT QUERIES.json [--passes 4] [--asked-before]

Runs ``bench/ragls_once.py``'s sequence on ROOT (a cold index, a warm run, five one-file
changes, each found by a search) and then searches every query of QUERIES once per pass,
``passes`` times: each pass's mean, p50 and p95 in ms. A single pass is what ``make bench``
times; the passes show how much of it is the first searches after a change (what the change
emptied) and how much the machine. To compare two commits, run this script with each
commit's ``server`` first on the path, alternating, and compare medians over the passes. With
``--asked-before`` every query is searched once before the changes too, so the first pass
shows what the searches after a write still find kept from before it (the looked-up terms).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ragls import RagService
from ragls.service.pipelines import WORKSPACE
from ragls_once import _change_target, percentile


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--asked-before", action="store_true")
    args = parser.parse_args(argv)
    queries: list[str] = json.loads(args.queries.read_text(encoding="utf-8"))
    rag = RagService(pipeline=WORKSPACE)
    started = time.perf_counter()
    rag.index_directory(args.root)
    cold = time.perf_counter() - started
    rag.search("warm up", 10)
    rag.index_directory(args.root)
    if args.asked_before:
        for query in queries:
            rag.search(query, 10)
    target = _change_target(args.root, rag.indexed_files())
    original = target.read_bytes()
    try:
        for number in range(5):
            marker = f"zqxbenchmarker{number}"
            target.write_bytes(original + f"\n# {marker}\n".encode())
            rag.index_directory(args.root, changed_paths=[target])
            rag.search(marker, 5)
    finally:
        target.write_bytes(original)
    passes = []
    for _ in range(args.passes):
        samples = []
        for query in queries:
            began = time.perf_counter()
            rag.search(query, 10)
            samples.append((time.perf_counter() - began) * 1000)
        passes.append(
            {
                "mean_ms": sum(samples) / len(samples),
                "p50_ms": percentile(samples, 0.5),
                "p95_ms": percentile(samples, 0.95),
            }
        )
    print(json.dumps({"cold_s": cold, "passes": passes}))


if __name__ == "__main__":
    main()

"""Two versions' search latency, interleaved query by query (docs/benchmarks.md).

    python bench/search_ab.py ROOT QUERIES.json SERVER_A SERVER_B [--passes 4] [--repeats 1]
                              [--pipeline NAME]

SERVER_A and SERVER_B are two checkouts' ``server`` folders (e.g. ``git archive`` of two
commits). Each runs in a process of its own (``--worker``, with that folder on the path), and
both go through ``bench/ragls_once.py``'s sequence on ROOT: a cold index, a warm run, five
one-file changes each found by a search (the same file changed for both, one after the
other). Then every query of QUERIES is searched ``passes`` times, A and B in turn for each
query, so that both see the same machine: on a shared machine the same commit's p95 moved by
30% between runs minutes apart, while interleaved the two move together. With ``--repeats R``
each query is searched R times a pass (A, B, A, B, ...) and each side's fastest kept: the least
noisy estimate of a query's cost, though a repeated query finds what the first search left in
a version's caches (the looked-up terms, the weighed postings). Prints JSON: each
side's cold index time and each pass's p50 and p95 in ms, and per pass the ratio of B's p95
and p50 to A's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _worker(root: Path, pipeline_name: str) -> None:
    """Answer one JSON command per line of stdin with one JSON line."""
    from ragls import RagService
    from ragls.service.pipelines import pipeline_named

    rag = RagService(pipeline=pipeline_named(pipeline_name))
    for line in sys.stdin:
        command = json.loads(line)
        operation = command["op"]
        answer: dict[str, Any] = {}
        began = time.perf_counter()
        if operation == "index":
            rag.index_directory(root)
            answer["files"] = rag.indexed_files()
        elif operation == "changed":
            rag.index_directory(root, changed_paths=[Path(command["path"])])
            marker = command["marker"]
            answer["found"] = any(marker in r.content for r in rag.search(marker, 5))
        elif operation == "search":
            rag.search(command["query"], 10)
        answer["seconds"] = time.perf_counter() - began
        print(json.dumps(answer), flush=True)


class _Side:
    def __init__(self, server: Path, root: Path, pipeline: str) -> None:
        environment = {**os.environ, "PYTHONPATH": str(server)}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(root), "--pipeline", pipeline],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environment,
            text=True,
        )

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit(f"a worker ended (exit {self.process.wait()})")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _change_target(root: Path, files: list[str]) -> Path:
    """A deterministic mid-sized Python file of the index (as ``ragls_once.py`` picks it)."""
    sized = sorted(((root / name).stat().st_size, name) for name in files if name.endswith(".py"))
    return root / sized[len(sized) // 2][1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("queries", type=Path, nargs="?")
    parser.add_argument("servers", type=Path, nargs="*")
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--pipeline", default="workspace")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.root, args.pipeline)
        return
    if args.queries is None or len(args.servers) != 2:
        parser.error("give ROOT QUERIES SERVER_A SERVER_B")
    queries: list[str] = json.loads(args.queries.read_text(encoding="utf-8"))
    sides = [_Side(server.resolve(), args.root, args.pipeline) for server in args.servers]
    try:
        cold = [side.ask(op="index") for side in sides]
        for side in sides:
            side.ask(op="search", query="warm up")
            side.ask(op="index")
        target = _change_target(args.root, cold[0]["files"])
        original = target.read_bytes()
        try:
            for number in range(5):
                marker = f"zqxbenchmarker{number}"
                target.write_bytes(original + f"\n# {marker}\n".encode())
                for side in sides:
                    assert side.ask(op="changed", path=str(target), marker=marker)["found"]
        finally:
            target.write_bytes(original)
        passes = []
        for _ in range(args.passes):
            samples: list[list[float]] = [[], []]
            for query in queries:
                fastest = [float("inf"), float("inf")]
                for _ in range(args.repeats):
                    for number, side in enumerate(sides):
                        seconds = side.ask(op="search", query=query)["seconds"]
                        fastest[number] = min(fastest[number], seconds * 1000)
                for number in range(2):
                    samples[number].append(fastest[number])
            p50 = [percentile(s, 0.5) for s in samples]
            p95 = [percentile(s, 0.95) for s in samples]
            passes.append(
                {
                    "p50_ms": p50,
                    "p95_ms": p95,
                    "p50_ratio": p50[1] / p50[0],
                    "p95_ratio": p95[1] / p95[0],
                }
            )
    finally:
        for side in sides:
            side.close()
    print(json.dumps({"cold_s": [c["seconds"] for c in cold], "passes": passes}))


if __name__ == "__main__":
    main()

"""What the symbol index costs: cold-index wall time and peak memory, and the latency of a
``workspace/symbol`` query (issue 28).

    python bench/symbols_cost.py once ROOT                one cold index in this process (JSON)
    python bench/symbols_cost.py compare ROOT BASE_SERVER [--runs N]

``once`` indexes ROOT with the workspace pipeline as the daemon does (worker processes, no
partial commits), then prints the wall time, the CPU time of the process and its workers (less
noisy than wall time on a shared machine), the process's peak resident memory (the daemon's;
the workers' is not counted), the symbol
counts and, when the code has a symbol index, the p50/p95 of ``SymbolIndex.search`` over
queries taken from the index's own names (exact names, prefixes of three letters, lower-case
sub-tokens, and fuzzy subsequences). ``compare`` alternates ``once`` runs of this checkout and
of another checkout's ``server`` folder (the baseline: the code without symbols) in fresh
processes and prints the medians and their ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE_SERVER = Path(__file__).resolve().parents[1] / "server"


def once(root: Path) -> dict[str, Any]:
    from ragls.service.rag_service import RagService

    service = RagService(pipeline="workspace", partial_commits=None)
    started = time.perf_counter()
    service.index_directory(root)
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime
    result: dict[str, Any] = {"wall_s": wall, "cpu_s": cpu, "peak_mib": own.ru_maxrss / 1024}
    # The baseline has no symbol index: the bench runs on both.
    symbols = getattr(vars(service)["_indexer"], "symbols", None)
    if symbols is not None and symbols.definition_count:
        result |= {"definitions": symbols.definition_count, "references": symbols.reference_count}
        result |= query_latency(symbols)
    return result


def query_latency(symbols: Any) -> dict[str, float]:
    rng = random.Random(7)
    names = sorted({d.name for path in symbols.paths() for d in symbols.get(path).definitions})
    picked = rng.sample(names, min(50, len(names)))
    queries = []
    for name in picked:
        queries += [name, name[:3], name.lower()[len(name) // 2 :]]
        letters = [c for c in name.lower() if c.isalnum()]
        queries.append("".join(letters[::2])[:6])
    timings = []
    for query in queries:
        started = time.perf_counter()
        symbols.search(query, 200)
        timings.append(time.perf_counter() - started)
    timings.sort()
    return {
        "query_p50_ms": 1000 * timings[len(timings) // 2],
        "query_p95_ms": 1000 * timings[int(len(timings) * 0.95)],
        "queries": len(timings),
    }


def run_once(server: Path, root: Path) -> dict[str, Any]:
    environment = dict(os.environ, PYTHONPATH=str(server))
    command = [sys.executable, __file__, "once", str(root)]
    output = subprocess.run(command, env=environment, capture_output=True, check=True, text=True)
    result: dict[str, Any] = json.loads(output.stdout)
    return result


def compare(root: Path, base_server: Path, runs: int) -> None:
    new: list[dict[str, Any]] = []
    base: list[dict[str, Any]] = []
    for _ in range(runs):
        base.append(run_once(base_server, root))
        new.append(run_once(HERE_SERVER, root))
        print(f"base {base[-1]}\nnew  {new[-1]}", file=sys.stderr)
    for measure in ("wall_s", "cpu_s", "peak_mib"):
        b = statistics.median(r[measure] for r in base)
        n = statistics.median(r[measure] for r in new)
        print(f"{measure}: base {b:.2f}, with symbols {n:.2f}, ratio {n / b:.3f}")
    for measure in ("definitions", "references", "query_p50_ms", "query_p95_ms"):
        print(f"{measure}: {statistics.median(r[measure] for r in new):.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("once")
    one.add_argument("root", type=Path)
    both = commands.add_parser("compare")
    both.add_argument("root", type=Path)
    both.add_argument("base_server", type=Path)
    both.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.command == "once":
        print(json.dumps(once(args.root)))
    else:
        compare(args.root, args.base_server, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a cold run's partial generations cost and give (ragls.ingest.partial).

    .venv/bin/python bench/partial.py FOLDER [--repeats N]

Indexes FOLDER cold with the workspace pipeline, each run in a fresh process, alternating a
service without partial commits (``off``, the single commit of before) and one with the default
cadence (``on``), and prints each run (wall time, when the first partial generation went live
and how many files it held, every partial commit) and the medians. The pairs alternate so that a
shared, noisy machine slows both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any


def once(folder: str, mode: str) -> dict[str, Any]:
    from ragls.ingest.partial import DEFAULT_PARTIAL_COMMITS
    from ragls.service.pipelines import WORKSPACE
    from ragls.service.rag_service import RagService
    from ragls.service.status import IndexStatus

    partials: list[tuple[float, int]] = []
    cadence = DEFAULT_PARTIAL_COMMITS if mode == "on" else None
    service = RagService(pipeline=WORKSPACE, partial_commits=cadence)
    start = time.perf_counter()

    def live(status: IndexStatus) -> None:
        assert status.partial is not None
        partials.append((round(time.perf_counter() - start, 2), status.partial.indexed_files))

    status = service.index_directory(folder, on_partial=live)
    return {
        "mode": mode,
        "seconds": round(time.perf_counter() - start, 2),
        "files": status.file_count,
        "chunks": status.chunk_count,
        "partials": partials,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--once", choices=["on", "off"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.once:
        print(json.dumps(once(args.folder, args.once)))
        return
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
    for _ in range(args.repeats):
        for mode in ("off", "on"):
            command = [sys.executable, __file__, args.folder, "--once", mode]
            result = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
            runs[mode].append(result)
            print(json.dumps(result), flush=True)
    for mode, results in runs.items():
        seconds = statistics.median(r["seconds"] for r in results)
        firsts = [r["partials"][0][0] for r in results if r["partials"]]
        first = f", first partial at {statistics.median(firsts):.2f} s" if firsts else ""
        print(f"{mode}: median {seconds:.2f} s over {len(results)} runs{first}")


if __name__ == "__main__":
    main()

"""What the structure queries cost on a real checkout: the repository map (graph build, then
ranked maps), definitions and references by name (issue 28).

    python bench/structure_cost.py ROOT [--repeat N]

Indexes ROOT once with the workspace pipeline (worker processes, as the daemon does), then
times, in this process: the first ``repo_map`` (it builds the file graph from every file's
references), further maps on the same index (uniform, with a query, with focus files), and
``definitions`` / ``references`` for names taken from the index. Prints JSON; medians in ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any


def timed(action: Any, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 1)


def measure(root: Path, repeat: int) -> dict[str, Any]:
    from ragls.core import repo_map
    from ragls.service.rag_service import RagService

    service = RagService(pipeline="workspace", partial_commits=None)
    started = time.perf_counter()
    service.index_directory(root)
    index_seconds = time.perf_counter() - started
    status = service.get_status()
    symbols = service._indexer.symbols
    structure = service.structure()
    started = time.perf_counter()
    first = structure.repo_map(4_000)
    first_ms = (time.perf_counter() - started) * 1000
    graph = repo_map.graph_of(symbols)
    paths = symbols.paths()
    rng = random.Random(7)
    focus = rng.sample(paths, min(3, len(paths)))
    names = sorted(
        {d.name for p in rng.sample(paths, min(50, len(paths))) for d in symbols.get(p).definitions}
    )  # type: ignore[union-attr]
    sample = rng.sample(names, min(20, len(names)))

    def build() -> None:
        repo_map.build_graph(symbols)

    return {
        "root": str(root),
        "files": status.file_count,
        "chunks": status.chunk_count,
        "definitions": status.symbols.definitions,
        "references": status.symbols.references,
        "graph_files": len(graph.paths),
        "graph_edges": len(graph.source),
        "index_seconds": round(index_seconds, 1),
        "first_repo_map_ms": round(first_ms, 1),
        "graph_build_ms": timed(build, repeat),
        "repo_map_ms": timed(lambda: service.structure().repo_map(4_000), repeat),
        "repo_map_query_ms": timed(
            lambda: service.structure().repo_map(4_000, query="parse the format string"), repeat
        ),
        "repo_map_focus_ms": timed(
            lambda: service.structure().repo_map(4_000, focus=focus), repeat
        ),
        "definitions_ms": timed(
            lambda: [service.structure().definitions(name) for name in sample], 1
        )
        / len(sample),
        "references_ms": timed(lambda: [service.structure().references(name) for name in sample], 1)
        / len(sample),
        "map_head": first.text.splitlines()[:12],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(measure(args.root, args.repeat), indent=2))


if __name__ == "__main__":
    main()

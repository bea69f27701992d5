"""ragls at one corpus scale, beside its peers and the floors (part of ``make bench``).

The corpus is the running interpreter's standard library without site-packages
(``sysconfig.get_paths()["stdlib"]``), copied ``scale`` times into a temporary folder (1x is a
copy too, so one-file changes never touch the interpreter). For each scale:

* ragls as a user runs it (``bench/ragls_once.py``, a fresh process per repeat): cold, warm and
  one-file-change index runs, files/s, MB/s, chunks, peak RSS, RSS per 1,000 chunks, and
  ``search`` / ``build_context_prompt`` latency over the query set;
* ragls and the peers on exactly ragls's chunks (``bench/peer_worker.py``, a process each);
* the floors: reading every byte of the corpus, and running the tokenizer regex over its text.

The query set: 200 natural-language queries (6-10 consecutive words of a chunk) and 100 short
ones (2-3 words), drawn with a fixed seed from the chunks.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from peers import SYSTEMS, export_chunks, floors, make_queries, run_script, run_system
from restart import ROWS as RESTART_ROWS
from restart import bench_restart

RAGLS_ONCE = Path(__file__).resolve().parent / "ragls_once.py"
RANK_BM25_MAX_CHUNKS = 200_000  # minutes per query set beyond this: its O(N) scoring is the point


def make_corpus(folder: Path, scale: int) -> Path:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    root = folder / "corpus"
    ignore = shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc")
    for copy in range(scale):
        shutil.copytree(stdlib, root / f"copy{copy}", ignore=ignore, symlinks=True)
    return root


def run_ragls(root: Path, queries: Path) -> dict[str, Any]:
    return run_script(RAGLS_ONCE, str(root), str(queries))


def _median(runs: list[dict[str, Any]], *path: str) -> float:
    values = []
    for run in runs:
        value: Any = run
        for key in path:
            value = value[key]
        values.append(float(value))
    return float(statistics.median(values))


def bench_scale(scale: int, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = make_corpus(base, scale)
        chunks, queries = base / "chunks.jsonl", base / "queries.json"
        count, _, _ = export_chunks(root, chunks)
        make_queries(chunks, queries)
        floor = floors(root, chunks)
        service_runs = [run_ragls(root, queries) for _ in range(repeats)]
        restarted = bench_restart(root, repeats, cli_repeats=max(1, min(3, repeats)))
        measured: dict[str, list[dict[str, Any]]] = {system: [] for system in SYSTEMS}
        for _ in range(repeats):
            for system in SYSTEMS:
                if system == "rank_bm25" and count > RANK_BM25_MAX_CHUNKS:
                    continue
                measured[system].append(run_system(system, chunks, queries))
    service = {
        key: _median(service_runs, key)
        for key in (
            "files",
            "chunks",
            "MB",
            "cold_s",
            "warm_s",
            "warm_files_read",
            "change_run_ms",
            "change_to_searchable_ms",
            "peak_rss_mb",
            "index_rss_mb",
            "rss_mb_per_1k_chunks",
            "overhead_kb_per_chunk",
            "searchable_chunks",
        )
    }
    for kind in ("search", "context"):
        for p in ("p50_ms", "p95_ms", "p99_ms"):
            service[f"{kind}_{p}"] = _median(service_runs, kind, p)
    service["files_per_s"] = service["files"] / service["cold_s"]
    service["MB_per_s"] = service["MB"] / service["cold_s"]
    service["chunks_per_s"] = service["chunks"] / service["cold_s"]
    service["cold/warm"] = service["cold_s"] / service["warm_s"]
    floor_s = floor["read_all_bytes_s"] + floor["tokenize_regex_s"]
    service["cold/floor"] = service["cold_s"] / floor_s
    systems = []
    for system, runs in measured.items():
        if runs:
            row = {"system": system}
            for key in ("index_s", "p50_ms", "p95_ms", "p99_ms", "peak_rss_mb", "index_rss_mb"):
                row[key] = _median(runs, key)
            systems.append(row)
    return {
        "scale": scale,
        "repeats": repeats,
        "chunks": count,
        **floor,
        "floor_s": floor_s,
        "service": service,
        "restart": restarted,
        "systems": systems,
    }


SERVICE_ROWS = [
    ("chunks / files", lambda s: f"{s['chunks']:.0f} / {s['files']:.0f}"),
    ("corpus MB", lambda s: f"{s['MB']:.1f}"),
    ("cold index s", lambda s: f"{s['cold_s']:.2f}"),
    (
        "  files/s, MB/s, chunks/s",
        lambda s: f"{s['files_per_s']:.0f}, {s['MB_per_s']:.2f}, {s['chunks_per_s']:.0f}",
    ),
    ("  cold / (read + tokenize floor)", lambda s: f"{s['cold/floor']:.2f}"),
    ("warm index s (files read)", lambda s: f"{s['warm_s']:.3f} ({s['warm_files_read']:.0f})"),
    ("  cold / warm", lambda s: f"{s['cold/warm']:.0f}"),
    ("one-file change: run ms", lambda s: f"{s['change_run_ms']:.1f}"),
    ("one-file change: to searchable ms", lambda s: f"{s['change_to_searchable_ms']:.1f}"),
    (
        "search p50 / p95 / p99 ms",
        lambda s: f"{s['search_p50_ms']:.2f} / {s['search_p95_ms']:.2f} / {s['search_p99_ms']:.2f}",
    ),
    (
        "context prompt p50 / p95 / p99 ms",
        lambda s: (
            f"{s['context_p50_ms']:.2f} / {s['context_p95_ms']:.2f} / {s['context_p99_ms']:.2f}"
        ),
    ),
    ("peak RSS MB", lambda s: f"{s['peak_rss_mb']:.0f}"),
    (
        "index RSS MB (per 1,000 chunks)",
        lambda s: f"{s['index_rss_mb']:.0f} ({s['rss_mb_per_1k_chunks']:.2f})",
    ),
    ("  beyond the text, KB per chunk", lambda s: f"{s['overhead_kb_per_chunk']:.2f}"),
    ("chunks searchable (all of them)", lambda s: f"{s['searchable_chunks']:.0f}"),
]


def markdown(result: dict[str, Any]) -> str:
    service, rows = result["service"], result["systems"]
    lines = [
        f"### {result['scale']}x: {result['chunks']} chunks; median of {result['repeats']} "
        f"run(s); floors: read {result['read_all_bytes_s']:.2f} s, tokenize "
        f"{result['tokenize_regex_s']:.2f} s",
        "",
        "| ragls service (defaults) | value |",
        "|---|---|",
    ]
    lines += [f"| {label} | {render(service)} |" for label, render in SERVICE_ROWS]
    lines += [f"| {label} | {render(result['restart'])} |" for label, render in RESTART_ROWS]
    hybrid = next(r for r in rows if r["system"] == "ragls-workspace")
    lines += [
        "",
        "Same chunks, one process each; ratio = ragls-workspace (the default pipeline) / this "
        "system (below 1: ragls is faster or smaller).",
        "",
        "| system | index s | index / floor | p50 ms | p95 ms | p99 ms | peak RSS MB "
        "| index RSS MB | ratio index | ratio p50 | ratio p95 | ratio p99 | ratio peak RSS "
        "| ratio index RSS |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratios = [hybrid[k] / row[k] for k in ("index_s", "p50_ms", "p95_ms", "p99_ms")]
        ratios.append(hybrid["peak_rss_mb"] / row["peak_rss_mb"])
        ratios.append(hybrid["index_rss_mb"] / row["index_rss_mb"])
        lines.append(
            f"| {row['system']} | {row['index_s']:.2f} | {row['index_s'] / result['floor_s']:.2f} "
            f"| {row['p50_ms']:.2f} | {row['p95_ms']:.2f} | {row['p99_ms']:.2f} "
            f"| {row['peak_rss_mb']:.0f} | {row['index_rss_mb']:.0f} | "
            + " | ".join(f"{r:.2f}" for r in ratios)
            + " |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    for scale in (int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1").split(",")):
        print(markdown(bench_scale(scale, repeats=1)))

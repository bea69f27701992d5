"""ragls beside its peers on the same chunks, in separate processes (part of ``make bench``).

The corpus is the running interpreter's standard library (without site-packages), optionally
replicated ``--scale`` times into a temporary folder. ragls chunks it once; every system then
indexes exactly those chunks and answers the same queries: 200 natural-language queries (6-10
consecutive words of a chunk) and 100 short ones (2-3 words), drawn with a fixed seed. The floors
are reading every byte of the files and running ragls's tokenizer regex over every chunk.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

SYSTEMS = ["ragls-hybrid", "ragls-bm25", "bm25s", "bm25s-ragls", "tantivy", "rank_bm25"]
WORKER = Path(__file__).resolve().parent / "peer_worker.py"
WORD = re.compile(r"[A-Za-z]{3,}")


def make_corpus(folder: Path, scale: int) -> Path:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if scale == 1:
        return stdlib
    root = folder / "corpus"
    ignore = shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc")
    for copy in range(scale):
        shutil.copytree(stdlib, root / f"copy{copy}", ignore=ignore, symlinks=True)
    return root


def export_chunks(root: Path, out: Path) -> tuple[int, float, float]:
    """Index ``root`` with ragls; write its chunks as JSONL; return (count, bytes, seconds)."""
    from ragls.core.bm25 import BM25Stream
    from ragls.core.knowledge_base import InMemoryKnowledgeBase
    from ragls.ingest.config import KnowledgeSourceConfig
    from ragls.ingest.indexer import FileIndexer

    indexer = FileIndexer()
    started = time.perf_counter()
    report = indexer.index(
        KnowledgeSourceConfig(root, exclude=("site-packages/",)),
        InMemoryKnowledgeBase(),
        BM25Stream(max_documents=10_000_000),
    )
    seconds = time.perf_counter() - started
    with out.open("w", encoding="utf-8") as handle:
        for document in indexer.indexed_documents():
            handle.write(json.dumps({"id": document.id, "text": document.content}) + "\n")
    return report.chunk_count, report.total_bytes, seconds


def make_queries(chunks: Path, out: Path, seed: int = 13) -> int:
    rng = random.Random(seed)
    texts = [json.loads(line)["text"] for line in chunks.open(encoding="utf-8")]
    queries: list[str] = []
    while len(queries) < 300:
        words = WORD.findall(rng.choice(texts))
        long = len(queries) < 200
        size = rng.randint(6, 10) if long else rng.randint(2, 3)
        if len(words) < size:
            continue
        start = rng.randrange(len(words) - size + 1)
        queries.append(" ".join(words[start : start + size]))
    out.write_text(json.dumps(queries), encoding="utf-8")
    return len(queries)


def floors(root: Path, chunks: Path) -> dict[str, float]:
    started = time.perf_counter()
    total = 0
    for path in root.rglob("*"):
        if "site-packages" in path.parts or not path.is_file() or path.is_symlink():
            continue
        total += len(path.read_bytes())
    read_seconds = time.perf_counter() - started
    texts = [json.loads(line)["text"] for line in chunks.open(encoding="utf-8")]
    token = re.compile(r"[a-z0-9_]{2,}")
    started = time.perf_counter()
    for text in texts:
        token.findall(text.lower())
    return {"read_all_bytes_s": read_seconds, "tokenize_regex_s": time.perf_counter() - started}


def run_system(system: str, chunks: Path, queries: Path) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, str(WORKER), system, str(chunks), str(queries)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def bench_peers(scale: int, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = make_corpus(base, scale)
        chunks, queries = base / "chunks.jsonl", base / "queries.json"
        count, total_bytes, ragls_index_s = export_chunks(root, chunks)
        make_queries(chunks, queries)
        measured: dict[str, list[dict[str, Any]]] = {system: [] for system in SYSTEMS}
        for _ in range(repeats):
            for system in SYSTEMS:
                if system == "rank_bm25" and count > 200_000:
                    continue  # minutes per query set at this size: its O(N) scoring is the point
                measured[system].append(run_system(system, chunks, queries))
        floor = floors(root, chunks)
    rows = []
    for system, runs in measured.items():
        if not runs:
            continue
        rows.append(
            {
                "system": system,
                "index_s": statistics.median(r["index_s"] for r in runs),
                "p50_ms": statistics.median(r["p50_ms"] for r in runs),
                "p95_ms": statistics.median(r["p95_ms"] for r in runs),
                "p99_ms": statistics.median(r["p99_ms"] for r in runs),
                "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
            }
        )
    return {
        "scale": scale,
        "chunks": count,
        "MB": total_bytes / 1e6,
        "ragls_full_index_s": ragls_index_s,
        **floor,
        "systems": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    rows = result["systems"]
    hybrid = next(r for r in rows if r["system"] == "ragls-hybrid")
    lines = [
        f"### {result['scale']}x: {result['chunks']} chunks, {result['MB']:.1f} MB; "
        f"ragls files to index {result['ragls_full_index_s']:.2f} s; "
        f"floors: read {result['read_all_bytes_s']:.2f} s, "
        f"tokenize {result['tokenize_regex_s']:.2f} s",
        "",
        "| system | index s | p50 ms | p95 ms | p99 ms | peak RSS MB "
        "| hybrid p95 / this p95 | hybrid RSS / this RSS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        p95_ratio = hybrid["p95_ms"] / row["p95_ms"]
        rss_ratio = hybrid["peak_rss_mb"] / row["peak_rss_mb"]
        lines.append(
            f"| {row['system']} | {row['index_s']:.2f} | {row['p50_ms']:.2f} "
            f"| {row['p95_ms']:.2f} | {row['p99_ms']:.2f} | {row['peak_rss_mb']:.0f} "
            f"| {p95_ratio:.2f} | {rss_ratio:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    scales = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1").split(",")]
    for scale in scales:
        print(markdown(bench_peers(scale, repeats=1)))

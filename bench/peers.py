"""The peers' side of ``make bench`` (used by bench/scale.py).

ragls chunks the corpus once (:func:`export_chunks`); every system then indexes exactly those
chunks in its own process (``bench/peer_worker.py``) and answers the same queries
(:func:`make_queries`). The floors are reading every byte of the files and running ragls's
tokenizer regex over every chunk (:func:`floors`).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SYSTEMS = [
    "ragls-workspace",
    "ragls-hybrid",
    "ragls-bm25",
    "bm25s",
    "bm25s-ragls",
    "tantivy",
    "rank_bm25",
]
WORKER = Path(__file__).resolve().parent / "peer_worker.py"
WORD = re.compile(r"[A-Za-z]{3,}")


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
            record = {"id": document.id, "text": document.content}
            record["metadata"] = dict(document.metadata)  # the workspace pipeline's fields
            handle.write(json.dumps(record) + "\n")
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


def run_script(script: Path, *arguments: str) -> dict[str, Any]:
    """Run a bench script in a fresh interpreter; its last line of output is its JSON result."""
    output = subprocess.run(
        [sys.executable, str(script), *arguments], check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def run_system(system: str, chunks: Path, queries: Path) -> dict[str, Any]:
    return run_script(WORKER, system, str(chunks), str(queries))

"""The team index in PostgreSQL beside the embedded store (part of ``make bench``; docs/storage.md).

A throwaway PostgreSQL 15 cluster (tests/store/pgcluster: local socket-free TCP on loopback,
fsync off, as a test cluster is: the figures are the engine's and the driver's, not a disk's)
and the standard library copied ``scale`` times (bench/scale.py's corpus). The corpus is indexed
once with the workspace pipeline; then, each repeat:

* publish: one generation written by ``save`` to the embedded store, to PostgreSQL, and to
  PostgreSQL with the BM25 search tables (``--database-search``);
* consume: ``load`` of that generation from each (what a restart or a consumer's first run
  costs before it reconciles), and the size each store holds; and a consumer's load from
  PostgreSQL keeping local copies of the parts (its first start), then again from those copies
  (its restarts at the same published commit: ragls.store.copies);
* search: p50 and p95 over 200 queries (2-6 consecutive words of random chunks) of BM25 in
  memory (the stream a loaded generation answers with), of the whole workspace pipeline in
  memory, and of BM25 in the database (``ragls search --in-database``).
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.store import pgcluster  # noqa: E402

from ragls.core.bm25 import BM25Stream  # noqa: E402
from ragls.core.documents import Document  # noqa: E402
from ragls.core.knowledge_base import InMemoryKnowledgeBase  # noqa: E402
from ragls.service.pipelines import WORKSPACE  # noqa: E402
from ragls.service.rag_service import RagService  # noqa: E402
from ragls.store.copies import PartCopies  # noqa: E402
from ragls.store.embedded import EmbeddedStore  # noqa: E402
from scale import make_corpus  # noqa: E402

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _queries(documents: list[Document], count: int = 200, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        words = _WORD.findall(rng.choice(documents).content)
        if words:
            start = rng.randrange(len(words))
            found.append(" ".join(words[start : start + rng.randint(2, 6)]))
    return found


def _percentiles(search: Callable[[str], object], queries: list[str]) -> tuple[float, float]:
    samples = []
    for query in queries:
        started = time.perf_counter()
        search(query)
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return samples[len(samples) // 2], samples[min(len(samples) - 1, int(0.95 * len(samples)))]


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _database_bytes(dsn: str, repository: str) -> int:
    import psycopg

    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
            "WHERE c.relname LIKE 'ragls_%%' AND c.relkind = 'r'"
        ).fetchone()
    return int(row[0] or 0) if row else 0


def bench_team(scale: int, repeats: int) -> dict[str, Any]:
    from ragls.store.postgres import PostgresStore

    cluster = pgcluster.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            root = make_corpus(base, scale)
            stream, knowledge_base = BM25Stream.unbounded(), InMemoryKnowledgeBase()
            service = RagService(pipeline=WORKSPACE, bm25=stream, knowledge_base=knowledge_base)
            status = service.index_directory(root)
            documents = knowledge_base.list()
            queries = _queries(documents)
            stored = service.export_snapshot()
            assert stored is not None
            key = stored.config_key
            rows: dict[str, list[float]] = {}

            def record(name: str, value: float) -> None:
                rows.setdefault(name, []).append(value)

            for repeat in range(repeats):
                stores = {
                    "embedded": EmbeddedStore(root, base / f"cache{repeat}"),
                    "postgres": PostgresStore(cluster.dsn, "bench/stdlib", f"r{repeat}"),
                    "postgres_search": PostgresStore(
                        cluster.dsn, "bench/stdlib", f"s{repeat}", database_search=True
                    ),
                }
                for name, store in stores.items():
                    assert store.acquire()
                    record(f"publish_{name}_s", _timed(lambda s=store: s.save(stored)))
                for name in ("embedded", "postgres"):
                    store = stores[name]
                    loaded: list[Any] = []
                    record(
                        f"load_{name}_s", _timed(lambda s=store, r=loaded: r.append(s.load(key)))
                    )
                    assert loaded[0].snapshot is not None, loaded[0].reason
                    record(f"{name}_MB", store.info().bytes_on_disk / 1e6)
                consumer = PostgresStore(
                    cluster.dsn,
                    "bench/stdlib",
                    f"r{repeat}",
                    refs=[f"r{repeat}"],
                    publish=False,
                    copies=PartCopies(base / f"copies{repeat}", root),
                )
                record("load_postgres_keeping_copies_s", _timed(lambda c=consumer: c.load(key)))
                record("load_postgres_from_copies_s", _timed(lambda c=consumer: c.load(key)))
                assert consumer.fetched_bytes == 0
                searcher = stores["postgres_search"]
                p50, p95 = _percentiles(lambda q: stream.search(q, 10), queries)
                record("bm25_memory_p50_ms", p50)
                record("bm25_memory_p95_ms", p95)
                p50, p95 = _percentiles(lambda q: service.search(q, 10), queries)
                record("workspace_memory_p50_ms", p50)
                record("workspace_memory_p95_ms", p95)
                p50, p95 = _percentiles(lambda q, s=searcher: s.search(q, 10), queries)
                record("bm25_database_p50_ms", p50)
                record("bm25_database_p95_ms", p95)
                for store in stores.values():
                    store.release()
            database_mb = _database_bytes(cluster.dsn, "bench/stdlib") / 1e6
    finally:
        cluster.stop()
    result = {"scale": scale, "chunks": status.chunk_count, "repeats": repeats}
    result |= {name: statistics.median(values) for name, values in rows.items()}
    result["database_all_tables_MB"] = database_mb
    return result


def markdown(results: list[dict[str, Any]]) -> str:
    keys = list(results[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in results:
        cells = [str(v) if isinstance(v, int) else f"{v:.3f}" for v in row.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    scales = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1").split(",")]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(markdown([bench_team(scale, repeats) for scale in scales]), flush=True)

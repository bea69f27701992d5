"""The PostgreSQL generation store against a real, throwaway PostgreSQL (tests/store/pgcluster):
the embedded store's guarantees, publish and consume, one writer per key, schema versions, and
answers identical to the embedded store's on a real corpus."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.errors import StoreError
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore
from ragls.store.interface import Snapshot
from tests.store import pgcluster
from tests.store.queries import sampled_queries

psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
ROOT = Path(__file__).resolve().parents[2]

if pgcluster.binaries() is None:
    pytest.skip(
        "NO POSTGRESQL BINARIES (initdb, pg_ctl): the PostgreSQL store is NOT tested; "
        "install Debian's postgresql package",
        allow_module_level=True,
    )

from ragls.store.pg_connection import safe_location  # noqa: E402
from ragls.store.pg_schema import SCHEMA_VERSION  # noqa: E402
from ragls.store.postgres import PostgresStore  # noqa: E402


@pytest.fixture
def dsn(postgres_dsn: str) -> str:
    return postgres_dsn


def key() -> str:
    return f"repo-{uuid.uuid4().hex[:8]}"


def snapshot(generation: int, config: str = "k1", size: int = 10) -> Snapshot:
    return Snapshot(
        generation,
        config,
        {"a.values": np.arange(size, dtype=np.int64), "a.weights": np.linspace(0, 1, 5)},
        {"docs": ["one", "two", ("a", 1)], "meta": {"n": generation, "none": None}},
    )


def test_a_saved_generation_loads_whole_and_the_pointer_moves(dsn: str) -> None:
    store = PostgresStore(dsn, key(), "main")
    assert store.load("k1").snapshot is None
    assert store.acquire()
    store.save(snapshot(1))
    store.save(snapshot(2, size=20))
    loaded = store.load("k1").snapshot
    assert loaded is not None and loaded.generation == 2
    assert loaded.arrays["a.values"].tolist() == list(range(20))
    assert loaded.objects["docs"] == ["one", "two", ["a", 1]]  # tuples come back as lists
    info = store.info()
    assert (info.generation, info.writer) == (2, True) and info.bytes_on_disk > 0
    with psycopg.connect(dsn) as connection:  # the older generation is gone
        count = connection.execute(
            "SELECT count(*) FROM ragls_generations WHERE repository = %s", (store.repository,)
        ).fetchone()
    assert count == (1,)
    store.release()


def test_a_part_larger_than_one_piece_round_trips(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ragls.store.pg_parts.PIECE_BYTES", 1000)
    store = PostgresStore(dsn, key(), "main")
    assert store.acquire()
    store.save(snapshot(1, size=5000))  # 40,000 bytes: 40 pieces
    loaded = store.load("k1").snapshot
    assert loaded is not None and loaded.arrays["a.values"].tolist() == list(range(5000))
    store.release()


def test_refusals_name_their_reason(dsn: str) -> None:
    store = PostgresStore(dsn, key(), "main")
    assert store.acquire()
    store.save(snapshot(1))
    other = store.load("k2")
    assert other.snapshot is None and other.discarded and "configuration changed" in other.reason
    with psycopg.connect(dsn) as connection:
        connection.execute(
            """UPDATE ragls_parts SET data = 'x'::bytea WHERE name = 'docs' AND generation_id =
               (SELECT generation_id FROM ragls_published WHERE repository = %s)""",
            (store.repository,),
        )
    damaged = store.load("k1")
    assert damaged.snapshot is None and damaged.discarded and "docs" in damaged.reason
    store.discard()
    assert "no generation" in store.load("k1").reason
    store.release()


def test_one_writer_per_key_and_the_others_are_told_who(dsn: str) -> None:
    repository = key()
    first, second = PostgresStore(dsn, repository, "main"), PostgresStore(dsn, repository, "main")
    assert first.acquire() and not second.acquire()
    assert second.info().owner_pid == os.getpid()
    with pytest.raises(StoreError, match="not written by this process"):
        second.save(snapshot(1))
    assert PostgresStore(dsn, repository, "other-branch").acquire()  # another key is free
    first.release()
    assert second.acquire()
    second.release()


def test_two_writer_processes_serialise(dsn: str, tmp_path: Path) -> None:
    repository = key()
    script = tmp_path / "writer.py"
    script.write_text(
        "import sys, time\n"
        "from ragls.store.postgres import PostgresStore\n"
        "from tests.store.test_postgres import snapshot\n"
        "store = PostgresStore(sys.argv[1], sys.argv[2], 'main')\n"
        "while not store.acquire():\n"
        "    time.sleep(0.05)\n"
        "print('acquired', time.time(), flush=True)\n"
        "store.save(snapshot(int(sys.argv[3])))\n"
        "time.sleep(0.5)\n"
        "print('released', time.time(), flush=True)\n"
        "store.release()\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT)])}
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), dsn, repository, str(n)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for n in (1, 2)
    ]
    spans = []
    for writer in writers:
        out, _ = writer.communicate(timeout=60)
        assert writer.returncode == 0
        times = dict(line.split() for line in out.splitlines())
        spans.append((float(times["acquired"]), float(times["released"])))
    spans.sort()
    assert spans[0][1] <= spans[1][0], f"the writers overlapped: {spans}"
    loaded = PostgresStore(dsn, repository, "main").load("k1").snapshot
    assert loaded is not None and loaded.generation in (1, 2)


def test_a_writer_killed_mid_publish_leaves_the_previous_generation(
    dsn: str, tmp_path: Path
) -> None:
    repository = key()
    script = tmp_path / "dying.py"
    script.write_text(
        "import sys\n"
        "from ragls.store.postgres import PostgresStore\n"
        "from tests.store.test_postgres import snapshot\n"
        "store = PostgresStore(sys.argv[1], sys.argv[2], 'main')\n"
        "assert store.acquire()\n"
        "store.save(snapshot(1))\n"
        "print('saved', flush=True)\n"
        "store.save(snapshot(2, size=40_000_000))\n"  # 320 MB: killed while it is written
        "print('too late', flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT)])}
    writer = subprocess.Popen(
        [sys.executable, str(script), dsn, repository],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "saved"
    deadline = time.time() + 60  # killed once its transaction is copying the parts in
    with psycopg.connect(dsn, autocommit=True) as watcher:
        while not watcher.execute(
            "SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = %s"
            " AND query LIKE 'COPY ragls_parts%%' AND state = 'active'",
            (f"ragls pid {writer.pid}",),
        ).fetchone()[0]:
            assert time.time() < deadline and writer.poll() is None, "the copy never started"
            time.sleep(0.01)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    reader = PostgresStore(dsn, repository, "main")
    loaded = reader.load("k1").snapshot
    assert loaded is not None and loaded.generation == 1
    deadline = time.time() + 30  # the server notices the dead connection and frees the lock
    while not reader.acquire():
        assert time.time() < deadline, "the killed writer's lock was never released"
        time.sleep(0.2)
    reader.release()


def test_a_consumer_loads_the_nearest_published_ancestor_and_never_writes(dsn: str) -> None:
    repository = key()
    publisher = PostgresStore(dsn, repository, "c1")
    assert publisher.acquire()
    publisher.save(snapshot(7))
    publisher.release()
    consumer = PostgresStore(dsn, repository, "c3", refs=["c3", "c2", "c1", "c0"])
    loaded = consumer.load("k1").snapshot
    assert loaded is not None and loaded.generation == 7
    assert not consumer.acquire()
    assert consumer.info().generation == 7
    nothing = PostgresStore(dsn, repository, "x", refs=["x", "y"]).load("k1")
    assert nothing.snapshot is None and "no generation" in nothing.reason


def test_status_asked_while_a_load_finishes_names_the_ref_loaded(dsn: str) -> None:
    """Status is read on its own thread: a load that finishes while status reads the database
    must not leave status naming the commit looked for (nothing is published for it)."""
    repository = key()
    publisher = PostgresStore(dsn, repository, "c1")
    assert publisher.acquire()
    publisher.save(snapshot(7))
    publisher.release()
    consumer = PostgresStore(dsn, repository, "c3", refs=["c3", "c2", "c1"])
    connect = consumer._connect

    def load_meanwhile(purpose: str) -> object:
        if purpose == "status":  # the load ends between status's first look and its query
            consumer._connect = connect  # type: ignore[method-assign]
            assert consumer.load("k1").snapshot is not None
        return connect(purpose)

    consumer._connect = load_meanwhile  # type: ignore[method-assign]
    info = consumer.info()
    assert "published for c1" in info.note and info.generation == 7
    assert consumer.info() == info  # and what status keeps for the next second is that


def test_a_newer_schema_is_refused(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("DROP DATABASE IF EXISTS ragls_newer")
        connection.execute("CREATE DATABASE ragls_newer")
    newer = dsn.rsplit("/", 1)[0] + "/ragls_newer"
    store = PostgresStore(newer, key(), "main")
    assert store.acquire()  # creates the schema
    store.release()
    with psycopg.connect(newer) as connection:
        connection.execute("UPDATE ragls_schema SET version = %s", (SCHEMA_VERSION + 1,))
    fresh = PostgresStore(newer, key(), "main")
    refused = fresh.load("k1")
    assert refused.snapshot is None and f"schema {SCHEMA_VERSION + 1}" in refused.reason
    with pytest.raises(StoreError, match="upgrade ragls"):
        fresh.acquire()


def test_the_location_never_shows_the_password() -> None:
    assert safe_location("postgresql://ci:s3cret@db.example:6543/index") == (
        "postgresql://db.example:6543/index"
    )
    store = PostgresStore("host=db user=ci password=s3cret dbname=index", "org/repo", "abc123")
    assert "s3cret" not in store.location and store.location.endswith("org/repo@abc123")


QUERIES = [
    "reciprocal rank fusion of streams",
    "parse the settings",
    "watch the file system",
    "framing content length",
    "secret redaction rule",
    "bm25 score",
    "split identifiers",
    "store generation pointer",
    "explain why a path is not indexed",
    "debounce changes",
    "tree-sitter chunk",
    "json rpc error",
    "mcp tool search code",
    "advisory lock",
    "progress report",
    "session registry",
    "ignore file patterns",
    "binary detection",
    "tfidf norms",
    "context prompt fence",
]


def test_answers_from_postgres_equal_the_embedded_stores(dsn: str, tmp_path: Path) -> None:
    corpus = ROOT / "server"
    cache = tmp_path / "cache"
    repository = key()
    stores = {
        "embedded": lambda: EmbeddedStore(corpus, cache),
        "postgres": lambda: PostgresStore(dsn, repository, "main"),
    }
    knowledge_base = InMemoryKnowledgeBase()
    fresh = RagService(pipeline=WORKSPACE, knowledge_base=knowledge_base)
    fresh.index_directory(corpus)
    queries = QUERIES + sampled_queries(knowledge_base.list(), 280)
    expected = [[(r.id, r.score) for r in fresh.search(q, 10)] for q in queries]
    assert sum(1 for answer in expected if answer) > 250  # the queries find things
    for name, make in stores.items():
        writer = RagService(pipeline=WORKSPACE, persistence=Persistence(make()))
        writer.index_directory(corpus)
        assert writer.persistence is not None
        writer.persistence.close()
        restarted = RagService(pipeline=WORKSPACE, persistence=Persistence(make()))
        restarted.index_directory(corpus)
        report = restarted.last_report
        assert report is not None and report.files_chunked == 0, f"{name}: loaded, not rebuilt"
        got = [[(r.id, r.score) for r in restarted.search(q, 10)] for q in queries]
        assert got == expected, name
        assert restarted.persistence is not None
        restarted.persistence.close()

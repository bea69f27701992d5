"""Least privilege in a team store: the set-up of docs/team-index.sql, run as written, gives a
publisher that creates, writes and migrates the tables and a reader that can load and search
but not write; each is told plainly what its role lacks."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragls.errors import StoreError
from ragls.store.interface import DOCUMENT_IDS, DOCUMENT_METADATA, DOCUMENT_TEXTS, Snapshot
from tests.store import pgcluster

psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
SETUP = Path(__file__).resolve().parents[2] / "docs" / "team-index.sql"

if pgcluster.binaries() is None:
    pytest.skip(
        "NO POSTGRESQL BINARIES (initdb, pg_ctl): the PostgreSQL store is NOT tested; "
        "install Debian's postgresql package",
        allow_module_level=True,
    )

from ragls.store.postgres import PostgresStore  # noqa: E402


def as_role(dsn: str, role: str, database: str) -> str:
    """``dsn`` (the test cluster's superuser, trust authentication) for ``role`` on
    ``database``."""
    address = dsn.split("@", 1)[1].rsplit("/", 1)[0]
    return f"postgresql://{role}@{address}/{database}"


def run_setup(dsn: str, suffix: str) -> dict[str, str]:
    """docs/team-index.sql as psql would run it (one statement per line, ``\\connect``),
    with this test's names for the roles and the database."""
    names = {name: f"{name}_{suffix}" for name in ("ragls_publisher", "ragls_reader")}
    names["ragls_team"] = f"ragls_team_{suffix}"
    text = SETUP.read_text(encoding="utf-8")
    for name, unique in names.items():
        text = text.replace(name, unique)
    connection: Any = psycopg.connect(dsn, autocommit=True)
    try:
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("--"):
                continue
            if line.startswith("\\connect "):
                connection.close()
                connection = psycopg.connect(
                    as_role(dsn, "ragls", line.split()[1]), autocommit=True
                )
                continue
            connection.execute(line.rstrip(";"))
    finally:
        connection.close()
    return {
        "publisher": as_role(dsn, names["ragls_publisher"], names["ragls_team"]),
        "reader": as_role(dsn, names["ragls_reader"], names["ragls_team"]),
    }


def corpus_snapshot(generation: int) -> Snapshot:
    return Snapshot(
        generation,
        "k1",
        {"a.values": np.arange(5, dtype=np.int64)},
        {
            DOCUMENT_IDS: ["pay.py:1-2", "cart.py:1-2"],
            DOCUMENT_TEXTS: ["def charge_card(card):\n    pass\n", "def add_item(item): pass\n"],
            DOCUMENT_METADATA: [{"file": "pay.py"}, {"file": "cart.py"}],
        },
    )


@pytest.fixture
def roles(postgres_dsn: str) -> dict[str, str]:
    return run_setup(postgres_dsn, uuid.uuid4().hex[:8])


def test_a_reader_with_select_only_loads_and_searches(roles: dict[str, str]) -> None:
    early = PostgresStore(roles["reader"], "org/shop", "c2", refs=["c2", "c1"], publish=False)
    nothing = early.load("k1")
    assert nothing.snapshot is None and "nothing was published" in nothing.reason

    publisher = PostgresStore(roles["publisher"], "org/shop", "c1", database_search=True)
    assert publisher.acquire()  # creates the schema: the publisher owns the database
    publisher.save(corpus_snapshot(3))
    publisher.release()

    reader = PostgresStore(roles["reader"], "org/shop", "c2", refs=["c2", "c1"], publish=False)
    loaded = reader.load("k1").snapshot
    assert loaded is not None and loaded.generation == 3
    assert [hit.document.id for hit in reader.search("charge card", 5)] == ["pay.py:1-2"]
    assert not reader.acquire()
    assert reader.info().generation == 3
    with (
        psycopg.connect(roles["reader"]) as connection,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        connection.execute("DELETE FROM ragls_published")


def test_a_reader_cannot_publish_and_is_told_what_it_lacks(roles: dict[str, str]) -> None:
    would_be = PostgresStore(roles["reader"], "org/shop", "c9")
    with pytest.raises(StoreError, match="a publisher's role must own the ragls tables"):
        would_be.acquire()
    publisher = PostgresStore(roles["publisher"], "org/shop", "c1")
    assert publisher.acquire()
    publisher.save(corpus_snapshot(1))
    publisher.release()
    with pytest.raises(StoreError, match="a publisher's role must own the ragls tables"):
        PostgresStore(roles["reader"], "org/shop", "c9").acquire()

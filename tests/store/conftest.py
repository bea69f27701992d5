"""One throwaway PostgreSQL cluster for every team-store test of a run (tests/store/pgcluster),
and an embedded store that is its cache folder's writer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragls.store.embedded import EmbeddedStore
from tests.store import pgcluster


@pytest.fixture
def store(tmp_path: Path) -> EmbeddedStore:
    """An embedded store of ``tmp_path / "workspace"``, its cache in ``tmp_path / "cache"``."""
    store = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert store.acquire()
    return store


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
    if pgcluster.binaries() is None:
        pytest.skip(
            "NO POSTGRESQL BINARIES (initdb, pg_ctl): the PostgreSQL store is NOT tested; "
            "install Debian's postgresql package"
        )
    cluster = pgcluster.start()
    try:
        yield cluster.dsn
    finally:
        cluster.stop()

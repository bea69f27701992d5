"""One throwaway PostgreSQL cluster for every team-store test of a run (tests/store/pgcluster)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.store import pgcluster


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

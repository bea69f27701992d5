"""A consumer's local copies of a team index's parts (ragls.store.copies), against a real,
throwaway PostgreSQL: a restart at the same published commit reads no part from the database, a
new publication reads only the parts that changed, a damaged copy is read again from the
database, copies are bounded, and a cache that cannot be written never fails a load."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import numpy as np
import pytest

from ragls.store.copies import PartCopies
from ragls.store.housekeeping import cached_workspaces
from ragls.store.interface import Snapshot
from tests.store import pgcluster

psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")

if pgcluster.binaries() is None:
    pytest.skip(
        "NO POSTGRESQL BINARIES (initdb, pg_ctl): the PostgreSQL store is NOT tested; "
        "install Debian's postgresql package",
        allow_module_level=True,
    )

from ragls.store.postgres import PostgresStore  # noqa: E402


def snapshot(generation: int, size: int) -> Snapshot:
    return Snapshot(
        generation,
        "k1",
        {"values": np.arange(size, dtype=np.int64), "weights": np.linspace(0, 1, 50_000)},
        {"texts": [f"chunk {i}" for i in range(size)], "meta": {"generation": generation}},
    )


class Team:
    """One repository in the team index: publish a generation, start a consumer."""

    def __init__(self, dsn: str, tmp_path: Path) -> None:
        self.dsn = dsn
        self.repository = f"example.org/team/{uuid.uuid4().hex[:8]}"
        self.cache = tmp_path / "cache"
        self.root = tmp_path / "checkout"
        self.root.mkdir()

    def publish(self, generation: int, size: int) -> None:
        publisher = PostgresStore(self.dsn, self.repository, "main")
        assert publisher.acquire()
        publisher.save(snapshot(generation, size))
        publisher.release()

    def consumer(self) -> PostgresStore:
        return PostgresStore(
            self.dsn,
            self.repository,
            "main",
            refs=["main"],
            publish=False,
            copies=PartCopies(self.cache / "workspace", self.root),
        )

    def load(self) -> tuple[Snapshot, int]:
        store = self.consumer()
        loaded = store.load("k1").snapshot
        assert loaded is not None
        return loaded, store.fetched_bytes

    @property
    def copies(self) -> Path:
        return self.cache / "workspace" / "team"


@pytest.fixture
def team(postgres_dsn: str, tmp_path: Path) -> Team:
    return Team(postgres_dsn, tmp_path)


def parts_bytes(dsn: str, repository: str) -> int:
    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            """SELECT sum(octet_length(data)) FROM ragls_parts p
               JOIN ragls_generations g ON g.id = p.generation_id WHERE g.repository = %s""",
            (repository,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_restart_at_the_same_commit_reads_no_part_from_the_database(team: Team) -> None:
    team.publish(1, size=30_000)
    first, fetched = team.load()
    assert fetched == parts_bytes(team.dsn, team.repository) > 0
    again, fetched = team.load()  # another process, the same workspace
    assert fetched == 0
    assert again.generation == 1
    assert again.arrays["values"].tolist() == first.arrays["values"].tolist()
    assert again.objects == first.objects
    listed = cached_workspaces(team.cache)  # ragls cache list shows them; clean removes them
    assert [entry.root for entry in listed] == [str(team.root)]
    assert listed[0].bytes_on_disk >= parts_bytes(team.dsn, team.repository)


def test_a_new_publication_reads_only_the_parts_that_changed(team: Team) -> None:
    team.publish(1, size=30_000)
    team.load()
    team.publish(2, size=30_001)  # "weights" is unchanged
    loaded, fetched = team.load()
    assert loaded.generation == 2 and len(loaded.objects["texts"]) == 30_001  # type: ignore[arg-type]
    unchanged = loaded.arrays["weights"].nbytes
    assert 0 < fetched == parts_bytes(team.dsn, team.repository) - unchanged


def test_a_damaged_copy_is_read_again_from_the_database(
    team: Team, caplog: pytest.LogCaptureFixture
) -> None:
    team.publish(1, size=30_000)
    team.load()
    for copy in team.copies.iterdir():
        data = bytearray(copy.read_bytes())
        data[len(data) // 2] ^= 0xFF
        copy.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        loaded, fetched = team.load()
    assert fetched == parts_bytes(team.dsn, team.repository)
    assert loaded.arrays["values"].tolist() == list(range(30_000))
    assert "fails its checksum" in caplog.text
    assert team.load()[1] == 0  # the copies were written again


def test_copies_keep_the_newest_generations_only(team: Team) -> None:
    for generation, size in enumerate((30_000, 40_000, 50_000, 60_000), start=1):
        team.publish(generation, size)
        team.load()
    current = parts_bytes(team.dsn, team.repository)  # the publisher keeps one generation
    on_disk = sum(copy.stat().st_size for copy in team.copies.iterdir())
    assert current <= on_disk <= 2 * current
    team.publish(1, size=30_000)  # the first generation's own parts were removed
    assert team.load()[1] > 0


def test_a_cache_that_cannot_be_written_never_fails_a_load(
    team: Team, caplog: pytest.LogCaptureFixture
) -> None:
    team.publish(1, size=30_000)
    team.copies.parent.mkdir(parents=True)
    team.copies.write_text("a file where the copies' folder would be")
    with caplog.at_level(logging.WARNING):
        loaded, fetched = team.load()
    assert loaded.arrays["values"].tolist() == list(range(30_000))
    assert fetched == parts_bytes(team.dsn, team.repository)
    assert "cannot keep copies of the team index" in caplog.text

"""The team store's schema in PostgreSQL: created and migrated by a publisher, only read by a
consumer (docs/storage.md, "What the database holds"; docs/team-index.sql).

``ragls_schema`` holds the schema version; a database of a newer schema than this ragls knows
is refused, never guessed at. A publisher creates and upgrades the tables under an advisory
lock (concurrent publishers take turns); a consumer reads the version and changes nothing, so
a role with SELECT on the tables is all it needs.
"""

from __future__ import annotations

from typing import Any

from ragls.errors import StoreError
from ragls.store import pg_search

SCHEMA_VERSION = 1
_MIGRATION_LOCK = 0x7261676C73  # "ragls": serialises schema creation across processes

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ragls_schema (version integer NOT NULL)",
    """CREATE TABLE IF NOT EXISTS ragls_generations (
        id bigserial PRIMARY KEY,
        repository text NOT NULL,
        ref text NOT NULL,
        generation integer NOT NULL,
        config_key text NOT NULL,
        created double precision NOT NULL,
        manifest jsonb NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS ragls_generations_key ON ragls_generations (repository, ref)",
    """CREATE TABLE IF NOT EXISTS ragls_parts (
        generation_id bigint NOT NULL REFERENCES ragls_generations (id) ON DELETE CASCADE,
        name text NOT NULL,
        piece integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (generation_id, name, piece))""",
    """CREATE TABLE IF NOT EXISTS ragls_published (
        repository text NOT NULL,
        ref text NOT NULL,
        generation_id bigint NOT NULL REFERENCES ragls_generations (id),
        published_at double precision NOT NULL,
        PRIMARY KEY (repository, ref))""",
    *pg_search.SCHEMA,
)


def _newer_schema(version: int) -> StoreError:
    return StoreError(
        f"the database holds ragls schema {version}; this ragls knows schema "
        f"{SCHEMA_VERSION} and will not touch it: upgrade ragls"
    )


def migrate(connection: Any) -> None:
    """Create or upgrade the schema (idempotent; concurrent callers take turns); StoreError if
    the database's schema is newer than this ragls knows. Only a publisher migrates: it needs
    to own the tables (or CREATE on the schema the first time)."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        for statement in _SCHEMA:
            connection.execute(statement)
        row = connection.execute("SELECT max(version) FROM ragls_schema").fetchone()
        version = row[0] if row else None
        if version is None:
            connection.execute("INSERT INTO ragls_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
        elif version > SCHEMA_VERSION:
            raise _newer_schema(version)


def check_schema(connection: Any) -> None:
    """What a consumer does instead of :func:`migrate`: it reads the schema version and
    changes nothing, so a role with SELECT on the tables is all a consumer needs
    (docs/storage.md, least privilege). StoreError when nothing was published to this
    database yet, or its schema is not the one this ragls reads."""
    with connection.transaction():
        row = connection.execute("SELECT to_regclass('ragls_schema') IS NOT NULL").fetchone()
        if not row or not row[0]:
            raise StoreError("the database holds no ragls team index yet (nothing was published)")
        row = connection.execute("SELECT max(version) FROM ragls_schema").fetchone()
    version = row[0] if row else None
    if version is not None and version > SCHEMA_VERSION:
        raise _newer_schema(version)
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"the database holds ragls schema {version}; this ragls reads schema "
            f"{SCHEMA_VERSION}: publish once with this ragls to migrate it"
        )

"""A generation store in PostgreSQL: one index for a team or a CI fleet (docs/storage.md).

The same contract as the embedded store (:mod:`ragls.store.interface`), over three tables
created and migrated by :mod:`ragls.store.pg_schema` (``ragls_schema`` holds the schema version;
a database of a newer schema is refused, not guessed at):

* ``ragls_generations``: one row per written generation, keyed by ``(repository, ref)`` (a
  repository identity and a commit, or any name the publisher chose), with its manifest (format,
  codec, configuration fingerprint, each part's size and SHA-256);
* ``ragls_parts``: the parts' bytes, in pieces of at most 32 MiB (a ``bytea`` holds 1 GB at
  most, and a large corpus's parts pass that; :mod:`ragls.store.pg_parts`);
* ``ragls_published``: the pointer, one row per key.

``save`` inserts the generation and its parts and updates the pointer in one transaction, then
deletes the key's other generations in the same transaction: readers see the old generation or
the new one, never a mix, and a writer killed at any moment leaves the previous one published
(its transaction is rolled back). ``load`` reads pointer, manifest and parts inside one
repeatable-read transaction, so a generation deleted meanwhile stays visible to it. The
manifest is schema-checked (:mod:`ragls.store.manifest`), each part's stored size is compared
with the declared one before anything is allocated for it and its checksum before it is
decoded with the bounded codec (:mod:`ragls.store.codec`): whoever can write the tables decides
what the index says, never how much memory a consumer takes or whether it crashes.

One writer per key: ``acquire`` takes a session-level advisory lock on a connection kept open
while this process writes (released by the server when the connection or the process dies);
the connection's ``application_name`` carries the pid, so others can say who writes.

A store loads the first of ``refs`` (the checkout's commit, then its ancestors) that has a
published generation. One opened to *consume* never writes: the service keeps local changes in
memory on top of what it loaded. One opened to *publish* writes under its own ``ref``. Stores
are :attr:`shared`: a generation published from one checkout is used at another path.

Every wait is bounded and the DSN is never shown (:mod:`ragls.store.pg_connection`):
:attr:`location` shows host, port, database and key only, and libpq's messages are redacted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from ragls.core.analyzer import SynonymTable, analyze
from ragls.core.documents import Document, SearchResult
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k
from ragls.errors import StoreError
from ragls.store import files, pg_parts, pg_search
from ragls.store.copies import PartCopies
from ragls.store.files import CorruptFile
from ragls.store.interface import LoadResult, Snapshot, StoreInfo
from ragls.store.manifest import checked, decode_parts, mismatch, opened
from ragls.store.pg_connection import connect, require_driver, safe_location
from ragls.store.pg_schema import check_schema, migrate
from ragls.store.redaction import first_line, redact

try:  # the optional extra ragls[postgres]
    import psycopg
except ImportError:  # pragma: no cover - exercised without the extra installed
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
INFO_SECONDS = 10.0


def lock_key(repository: str, ref: str) -> int:
    """The advisory lock key of ``(repository, ref)``: 64 signed bits of their SHA-256."""
    digest = hashlib.sha256(f"{repository}\0{ref}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class PostgresStore:
    """The generations of ``repository`` at ``ref`` in the database at ``dsn``.

    ``refs``: the refs to load from, best first (the checkout's commit, then its ancestors);
    default ``[ref]``. ``publish``: whether this process may write under ``ref`` (default: only
    when ``refs`` is not given; a consumer keeps its changes in memory). A publisher that loads
    an ancestor's generation reconciles it and publishes the result under ``ref``, so CI
    re-chunks only what changed since the last published commit. ``keep``: after a publish, at
    most this many published refs of ``repository`` are kept (the newest), older ones deleted
    in the same transaction; None keeps all. ``database_search``: a publish also writes the
    generation's BM25 search tables (:mod:`ragls.store.pg_search`), for :meth:`search`.
    ``copies``: local copies of parts (:mod:`ragls.store.copies`), read instead of the
    database's when the manifest names the same bytes, and refreshed after each load.
    """

    def __init__(
        self,
        dsn: str,
        repository: str,
        ref: str,
        *,
        refs: Sequence[str] | None = None,
        publish: bool | None = None,
        keep: int | None = None,
        database_search: bool = False,
        copies: PartCopies | None = None,
    ) -> None:
        require_driver()
        self._dsn = dsn
        self.repository = repository
        self.ref = ref
        self.refs = list(refs) if refs is not None else [ref]
        self.publishes = publish if publish is not None else refs is None
        self.keep = keep
        self.database_search = database_search
        self.copies = copies
        self.fetched_bytes = 0  # what the last load read of parts from the database
        self._lock: Any = None  # the connection holding the advisory lock
        self._migrated = False
        self._loaded_ref: str | None = None
        self._info: tuple[float, StoreInfo] | None = None  # cached: status asks often

    @property
    def location(self) -> str:
        return f"{safe_location(self._dsn)} {self.repository}@{self.ref}"

    @property
    def shared(self) -> bool:
        return True

    def _redacted(self, error: BaseException) -> str:
        return redact(first_line(error), self._dsn)

    @property
    def loaded_ref(self) -> str | None:
        """The ref whose generation the last load found (an ancestor of ``ref``, maybe)."""
        return self._loaded_ref

    def _connect(self, purpose: str) -> Any:
        """A connection with ``purpose``'s timeouts (ragls.store.pg_connection), the schema
        checked (a consumer) or migrated (a publisher) the first time."""
        connection = connect(self._dsn, purpose)
        if not self._migrated:
            try:
                (migrate if self.publishes else check_schema)(connection)
            except psycopg.Error as error:  # most often a role without the grants it needs
                connection.close()
                needs = (
                    "a publisher's role must own the ragls tables (docs/team-index.sql)"
                    if self.publishes
                    else "a consumer's role needs SELECT on the ragls tables"
                )
                raise StoreError(
                    f"{safe_location(self._dsn)}: the ragls schema cannot be "
                    f"{'prepared' if self.publishes else 'read'} ({self._redacted(error)}); {needs}"
                ) from None
            except BaseException:
                connection.close()
                raise
            self._migrated = True
        return connection

    # -- the writer lock -----------------------------------------------------------------------

    def acquire(self) -> bool:
        if not self.publishes:
            return False  # a consumer keeps its changes in memory
        if self._lock is not None and not self._lock.closed:
            return True
        connection = self._connect("publish")
        connection.autocommit = True
        try:
            row = connection.execute(
                "SELECT pg_try_advisory_lock(%s)", (lock_key(self.repository, self.ref),)
            ).fetchone()
        except psycopg.Error as error:
            connection.close()
            raise StoreError(f"cannot take the writer lock: {self._redacted(error)}") from None
        if row is None or not row[0]:
            connection.close()
            return False
        self._lock = connection
        self._info = None
        return True

    def release(self) -> None:
        self._info = None
        lock, self._lock = self._lock, None
        if lock is not None:
            with contextlib.suppress(psycopg.Error):
                lock.close()  # the server releases a session lock with its connection

    def _owner_pid(self, connection: Any) -> int | None:
        key = lock_key(self.repository, self.ref) & 0xFFFFFFFFFFFFFFFF
        row = connection.execute(
            """SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s
               AND l.objsubid = 1""",
            (key >> 32, key & 0xFFFFFFFF),
        ).fetchone()
        if row and isinstance(row[0], str) and row[0].startswith("ragls pid "):
            try:
                return int(row[0].split()[-1])
            except ValueError:
                return None
        return None

    # -- reading -------------------------------------------------------------------------------

    def load(self, config_key: str) -> LoadResult:
        try:
            connection = self._connect("load")
        except StoreError as error:
            return LoadResult(None, str(error), warning=True)
        try:
            with connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return self._load(connection, config_key)
        except (CorruptFile, ValueError, KeyError, TypeError, RecursionError) as error:
            return LoadResult(None, f"the stored generation is unusable: {error}", True)
        except psycopg.Error as error:
            return LoadResult(
                None, f"the database cannot be read: {self._redacted(error)}", warning=True
            )
        finally:
            connection.close()

    def _load(self, connection: Any, config_key: str) -> LoadResult:
        self._info = None
        refs = self.refs
        rows = connection.execute(
            """SELECT p.ref, g.id, g.generation, g.config_key, g.created, g.manifest
               FROM ragls_published p JOIN ragls_generations g ON g.id = p.generation_id
               WHERE p.repository = %s AND p.ref = ANY(%s)""",
            (self.repository, refs),
        ).fetchall()
        by_ref = {row[0]: row for row in rows}
        chosen = next((by_ref[ref] for ref in refs if ref in by_ref), None)
        if chosen is None:
            where = self.ref
            if len(refs) > 1:
                where = f"{self.ref} or any of its {len(refs) - 1} ancestors"
            return LoadResult(None, f"no generation of {self.repository} is stored for {where}")
        ref, generation_id, _, stored_key, _, stored = chosen
        manifest = opened(stored)
        reason = mismatch(manifest, FORMAT_VERSION, stored_key, config_key)
        if reason:
            return LoadResult(None, f"the stored generation is unusable: {reason}", True)
        found = checked(manifest)
        copied: dict[str, bytearray] = {}
        if self.copies is not None:
            for name, part in found.parts.items():
                copy = self.copies.read(part.entry())
                if copy is not None:
                    copied[name] = copy
        missing = {name: part for name, part in found.parts.items() if name not in copied}
        pieces = pg_parts.read(connection, generation_id, missing)

        def read(name: str, entry: dict[str, Any]) -> bytearray:
            if name in copied:
                return copied[name]  # checked when it was read
            return files.check_bytes(pieces[name], entry, name)

        arrays, objects = decode_parts(found.parts, read)
        self._loaded_ref = ref
        self._info = None  # status names the ref loaded from now on, not one cached before
        self.fetched_bytes = sum(len(data) for data in pieces.values())
        if self.copies is not None:
            fetched = {found.parts[name].sha256: data for name, data in pieces.items()}
            self.copies.update([part.entry() for part in found.parts.values()], fetched)
            log.info(
                "loaded generation %s of %s@%s: %d of %d parts (%.1f MB) from the database, "
                "the others from local copies",
                found.generation,
                self.repository,
                ref[:12],
                len(missing),
                len(found.parts),
                self.fetched_bytes / 1e6,
            )
        snapshot = Snapshot(found.generation, config_key, arrays, objects, found.created)
        return LoadResult(snapshot)

    # -- writing -------------------------------------------------------------------------------

    def save(self, snapshot: Snapshot) -> None:
        if self._lock is None or self._lock.closed:
            raise StoreError(f"{self.location} is not written by this process")
        parts: dict[str, dict[str, Any]] = {}
        payload: list[tuple[str, bytes | memoryview]] = []
        for part, array in snapshot.arrays.items():
            data, entry = files.encode_array(array)
            parts[part] = entry
            payload.append((part, data))
        for part, value in snapshot.objects.items():
            if part in parts:
                raise ValueError(f"part {part!r} is both an array and an object")
            encoded, entry = files.encode_object(value)
            parts[part] = entry
            payload.append((part, encoded))
        tables = pg_search.build(snapshot.objects) if self.database_search else None
        created = time.time()
        manifest = {
            "format": FORMAT_VERSION,
            "codec": files.CODEC,
            "config": snapshot.config_key,
            "generation": snapshot.generation,
            "created": created,
            "parts": parts,
        }
        connection = self._connect("publish")
        try:
            with connection.transaction():
                row = connection.execute(
                    """INSERT INTO ragls_generations
                       (repository, ref, generation, config_key, created, manifest)
                       VALUES (%s, %s, %s, %s, %s, %s) RETURNING id""",
                    (
                        self.repository,
                        self.ref,
                        snapshot.generation,
                        snapshot.config_key,
                        created,
                        json.dumps(manifest),
                    ),
                ).fetchone()
                generation_id = row[0]
                with connection.cursor().copy(
                    "COPY ragls_parts (generation_id, name, piece, data) FROM STDIN"
                ) as copy:
                    pg_parts.write(copy, generation_id, payload)
                if tables is not None:
                    pg_search.write(connection, generation_id, tables)
                connection.execute(
                    """INSERT INTO ragls_published (repository, ref, generation_id, published_at)
                       VALUES (%s, %s, %s, %s) ON CONFLICT (repository, ref)
                       DO UPDATE SET generation_id = EXCLUDED.generation_id,
                                     published_at = EXCLUDED.published_at""",
                    (self.repository, self.ref, generation_id, created),
                )
                connection.execute(
                    """DELETE FROM ragls_generations
                       WHERE repository = %s AND ref = %s AND id <> %s""",
                    (self.repository, self.ref, generation_id),
                )
                if self.keep is not None:
                    self._retire(connection)
            self._loaded_ref = self.ref  # what info shows from now on
        except psycopg.Error as error:
            raise StoreError(
                f"writing the index to {self.location} failed: {self._redacted(error)}"
            ) from None
        finally:
            self._info = None
            connection.close()

    def _retire(self, connection: Any) -> None:
        """Delete the repository's published refs past the newest ``keep`` (inside the
        publishing transaction; a reader's repeatable-read snapshot still sees them)."""
        old = connection.execute(
            """SELECT ref, generation_id FROM ragls_published WHERE repository = %s
               ORDER BY published_at DESC, ref OFFSET %s""",
            (self.repository, self.keep),
        ).fetchall()
        for ref, generation_id in old:
            connection.execute(
                "DELETE FROM ragls_published WHERE repository = %s AND ref = %s",
                (self.repository, ref),
            )
            connection.execute("DELETE FROM ragls_generations WHERE id = %s", (generation_id,))

    def discard(self) -> None:
        if self._lock is None or self._lock.closed:
            return
        self._info = None
        try:
            connection = self._connect("publish")
        except StoreError as error:
            log.warning("could not discard %s: %s", self.location, self._redacted(error))
            return
        try:
            with connection.transaction():
                connection.execute(
                    "DELETE FROM ragls_published WHERE repository = %s AND ref = %s",
                    (self.repository, self.ref),
                )
                connection.execute(
                    "DELETE FROM ragls_generations WHERE repository = %s AND ref = %s",
                    (self.repository, self.ref),
                )
        except psycopg.Error as error:
            log.warning("could not discard %s: %s", self.location, self._redacted(error))
        finally:
            connection.close()

    # -- searching in the database -------------------------------------------------------------

    def search(
        self, query: str, top_k: int, synonyms: SynonymTable | None = None
    ) -> list[SearchResult]:
        """BM25 (SPEC §3) in the database over the search tables of the first of ``refs``
        published with them; StoreError if none is, or the database cannot be read."""
        check_top_k(top_k, MAX_STREAM_TOP_K)
        terms = analyze(check_query(query), query=True, synonyms=synonyms)
        connection = self._connect("search")
        try:
            with connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                generation_id = self._searchable(connection)
                rows = pg_search.search(connection, generation_id, terms, top_k)
        except psycopg.Error as error:
            raise StoreError(f"searching {self.location} failed: {self._redacted(error)}") from None
        finally:
            connection.close()
        return [
            SearchResult(Document(chunk_id, content, metadata), score)
            for chunk_id, score, content, metadata in rows
        ]

    def _searchable(self, connection: Any) -> int:
        rows = connection.execute(
            """SELECT p.ref, p.generation_id FROM ragls_published p
               JOIN ragls_search_stats s ON s.generation_id = p.generation_id
               WHERE p.repository = %s AND p.ref = ANY(%s)""",
            (self.repository, self.refs),
        ).fetchall()
        by_ref = {row[0]: int(row[1]) for row in rows}
        for ref in self.refs:
            if ref in by_ref:
                self._loaded_ref = ref
                return by_ref[ref]
        raise StoreError(
            f"no generation of {self.repository} with search tables is published for "
            f"{self.ref} or its ancestors (publish with ragls index --store ... --database-search)"
        )

    # -- status --------------------------------------------------------------------------------

    def info(self) -> StoreInfo:
        """What status shows; cached for :data:`INFO_SECONDS` (status is asked every second
        while a client shows progress) and refreshed after this process loads or writes."""
        cached = self._info
        now = time.monotonic()
        if cached is not None and now - cached[0] < INFO_SECONDS:
            return dataclasses.replace(cached[1], note=self._note())  # the ref loaded now
        loaded = self._loaded_ref
        info = self._read_info()
        if self._loaded_ref != loaded:  # a load ended meanwhile (status has its own thread):
            info = self._read_info()  # what was read named the commit looked for
        self._info = (now, info)
        return info

    def _note(self) -> str:
        """What a consumer says it reads: the ref whose generation it loaded (an ancestor of
        its checkout's commit, maybe), else the commit it looks for."""
        if self.publishes:
            return ""
        shown = self._loaded_ref or self.ref
        return (
            f"reads the team index of {self.repository} published for {shown[:12]}; "
            "local changes stay in memory"
        )

    def _read_info(self) -> StoreInfo:
        writer = self._lock is not None and not self._lock.closed
        note = self._note()
        try:
            connection = self._connect("status")
        except StoreError:
            return StoreInfo(location=self.location, writer=writer, note=note)
        try:
            row = connection.execute(
                """SELECT g.generation, p.published_at,
                          (SELECT coalesce(sum(octet_length(data)), 0) FROM ragls_parts
                           WHERE generation_id = g.id)
                   FROM ragls_published p JOIN ragls_generations g ON g.id = p.generation_id
                   WHERE p.repository = %s AND p.ref = %s""",
                (self.repository, self._loaded_ref or self.refs[0]),
            ).fetchone()
            owner = None if writer or not self.publishes else self._owner_pid(connection)
        except psycopg.Error:
            return StoreInfo(location=self.location, writer=writer, note=note)
        finally:
            connection.close()
        if row is None:
            return StoreInfo(location=self.location, writer=writer, owner_pid=owner, note=note)
        return StoreInfo(
            location=self.location,
            bytes_on_disk=int(row[2]),
            generation=int(row[0]),
            written_at=float(row[1]),
            writer=writer,
            owner_pid=owner,
            note=note,
        )

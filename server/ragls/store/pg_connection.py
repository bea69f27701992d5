"""Connections to a team store's PostgreSQL: bounded waits, and the DSN never shown
(docs/storage.md, "A team index"; docs/security.md).

Every wait on the database is bounded, so a database that is down, unreachable, or holding a
lock on the ragls tables costs a consumer a few seconds and a local index, never a session
(a consumer once waited for as long as another session held a table lock, and ``rag/status``
went unanswered): a connection must be made within :data:`CONNECT_SECONDS` (and a silent
network gives up after :data:`NETWORK_SECONDS`), and each connection's lock and statement
timeouts are set by what it is for (:data:`TIMEOUTS`, as data). A status query waits least; a
publisher, which writes a whole generation and may wait for another publisher's migration,
most.

Errors name host, port and database only (:func:`safe_location`), with libpq's own message
redacted (:mod:`ragls.store.redaction`): libpq quotes the pieces of a DSN it cannot parse.
"""

from __future__ import annotations

import os
from typing import Any

from ragls.errors import StoreError
from ragls.store.redaction import first_line, redact

try:  # the optional extra ragls[postgres]
    import psycopg
    from psycopg import conninfo as _conninfo
except ImportError:  # pragma: no cover - exercised without the extra installed
    psycopg = None  # type: ignore[assignment]

CONNECT_SECONDS = 5
NETWORK_SECONDS = 30  # tcp_user_timeout: unacknowledged data on a dead network
# purpose: (lock_timeout, statement_timeout), in seconds
TIMEOUTS: dict[str, tuple[float, float]] = {
    "load": (5, 300),  # a consumer's load reads a whole generation: 24 s at 16x on loopback
    "publish": (120, 3600),  # a generation's COPY, the search tables, a migration's turn
    "search": (5, 60),
    "status": (1, 5),
}


def require_driver() -> None:
    if psycopg is None:
        raise StoreError(
            "a postgresql:// store needs the optional extra: pip install 'ragls[postgres]'"
        )


def safe_location(dsn: str) -> str:
    """host:port/database of ``dsn`` without user or password (what logs and status show)."""
    require_driver()
    try:
        parts = _conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable DSN)"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"postgresql://{host}:{port}/{parts.get('dbname') or ''}"


def _options(dsn: str, purpose: str) -> str:
    """The DSN's own ``options`` with this purpose's timeouts after them (later wins)."""
    lock, statement = TIMEOUTS[purpose]
    given = _conninfo.conninfo_to_dict(dsn).get("options") or ""
    ours = f"-c lock_timeout={int(lock * 1000)} -c statement_timeout={int(statement * 1000)}"
    return f"{given} {ours}".strip()


def connect(dsn: str, purpose: str) -> Any:
    """A connection for ``purpose`` (a key of :data:`TIMEOUTS`); StoreError naming the
    database, never the DSN's password, when it cannot be made."""
    require_driver()
    try:
        return psycopg.connect(
            dsn,
            application_name=f"ragls pid {os.getpid()}",
            connect_timeout=CONNECT_SECONDS,
            tcp_user_timeout=NETWORK_SECONDS * 1000,
            options=_options(dsn, purpose),
        )
    except psycopg.Error as error:
        raise StoreError(
            f"cannot connect to {safe_location(dsn)}: {redact(first_line(error), dsn)}"
        ) from None

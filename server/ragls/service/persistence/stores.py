"""Which generation store a session's index lives in (SPEC §11, docs/storage.md).

The one place a store is chosen, for every front end (daemon, CLI, MCP server):

1. the ``persistence.store`` setting, if set (``ragls index --store`` sets it);
2. else the first line of the file named by ``$RAGLS_STORE_FILE`` (a secret mounted in CI);
3. else ``$RAGLS_STORE``;
4. else ``embedded``: the per-user store under the cache directory.

A value is ``embedded`` or a PostgreSQL URI (``postgresql://`` or ``postgres://``). A password
is best left out of it: libpq reads ``~/.pgpass``, ``$PGPASSFILE`` and ``$PGPASSWORD``
itself. The DSN is never logged nor shown; status shows host, port and database.

With a PostgreSQL store a session either *consumes* (the default: it loads the generation
published for its checkout's commit or the nearest ancestor, reconciles local edits in memory
and never writes to the team index; it keeps copies of the parts it loaded in its workspace's
cache folder, :mod:`ragls.store.copies`, so a restart reads only what changed) or *publishes*
(``ragls index PATH --store``: it starts from the nearest published ancestor, reconciles, and
writes the result under the checkout's commit). Both key the index by the repository's
identity (:mod:`ragls.service.persistence.repository`). A folder that is not a git checkout
with a remote cannot be keyed: a consumer falls back to the embedded store (logged), a
publisher needs ``--repository`` and ``--ref``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.errors import InvalidArgumentError
from ragls.service.persistence.repository import identify
from ragls.store.copies import PartCopies
from ragls.store.embedded import EmbeddedStore
from ragls.store.interface import GenerationStore
from ragls.store.paths import workspace_folder

if TYPE_CHECKING:
    from ragls.store.postgres import PostgresStore

log = logging.getLogger(__name__)

EMBEDDED = "embedded"
STORE_ENVIRONMENT = "RAGLS_STORE"
STORE_FILE_ENVIRONMENT = "RAGLS_STORE_FILE"
SCHEMES = ("postgresql://", "postgres://")
DEFAULT_KEEP = 20  # published commits a repository keeps in a team store (see Publication)


def check_store(value: str) -> str:
    """A ``persistence.store`` value, or InvalidArgumentError (which never quotes the value:
    it may hold a password)."""
    value = value.strip()
    if value == EMBEDDED or value.startswith(SCHEMES):
        return value
    raise InvalidArgumentError(
        "persistence.store must be 'embedded' or a postgresql:// URI "
        f"(got {len(value)} characters of something else)"
    )


@dataclass(frozen=True, slots=True)
class StoreTarget:
    """Where indexes go: ``dsn`` None for the embedded store; ``origin`` says who chose it."""

    dsn: str | None = field(repr=False)
    origin: str = "the default"


def store_target(setting: str | None, environ: Mapping[str, str] | None = None) -> StoreTarget:
    """The store chosen by ``setting`` or the environment (see the module docstring);
    InvalidArgumentError naming the source when the value cannot be used."""
    environ = os.environ if environ is None else environ
    origin = "the persistence.store setting"
    value = setting
    if value is None and environ.get(STORE_FILE_ENVIRONMENT):
        path = Path(environ[STORE_FILE_ENVIRONMENT]).expanduser()
        origin = f"${STORE_FILE_ENVIRONMENT} ({path})"
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise InvalidArgumentError(f"cannot read {origin}: {error}") from None
        value = lines[0] if lines else ""
    elif value is None and environ.get(STORE_ENVIRONMENT):
        origin, value = f"${STORE_ENVIRONMENT}", environ[STORE_ENVIRONMENT]
    if value is None:
        return StoreTarget(None)
    try:
        value = check_store(value)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{origin}: {error}") from None
    return StoreTarget(None if value == EMBEDDED else value, origin)


@dataclass(frozen=True, slots=True)
class Publication:
    """What a publishing session writes under: ``repository`` and ``ref`` default to the
    checkout's identity and commit; ``keep`` bounds how many published commits of the
    repository stay (older ones are deleted when a newer one is published; None: all)."""

    repository: str | None = None
    ref: str | None = None
    keep: int | None = DEFAULT_KEEP
    database_search: bool = False  # also write the BM25 search tables (ragls.store.pg_search)


def open_store(
    target: StoreTarget,
    root: Path,
    cache_dir: str | None,
    publication: Publication | None = None,
) -> GenerationStore:
    """The store of the session rooted at ``root``. Raises InvalidArgumentError or
    StoreError when a publication cannot be keyed or the driver is missing; a consumer that
    cannot be keyed gets the embedded store instead (logged)."""
    if target.dsn is None:
        if publication is not None:
            raise InvalidArgumentError(
                f"publishing needs a postgresql:// store ({STORE_FILE_ENVIRONMENT}, "
                f"{STORE_ENVIRONMENT} or --store), and {target.origin} chose the embedded one"
            )
        return EmbeddedStore(root, cache_dir)
    from ragls.store.pg_connection import safe_location
    from ragls.store.postgres import PostgresStore

    checkout = identify(root)
    if publication is None:
        if checkout is None:
            log.warning(
                "%s is not a git checkout with a remote and a commit, so the team index at %s "
                "cannot be keyed for it; using the embedded store",
                root,
                safe_location(target.dsn),
            )
            return EmbeddedStore(root, cache_dir)
        resolved = root.resolve()
        return PostgresStore(
            target.dsn,
            checkout.repository,
            checkout.commit,
            refs=checkout.ancestors,
            publish=False,
            copies=PartCopies(workspace_folder(resolved, cache_dir), resolved),
        )
    repository = publication.repository or (checkout.repository if checkout else None)
    ref = publication.ref or (checkout.commit if checkout else None)
    if repository is None or ref is None:
        raise InvalidArgumentError(
            f"{root} is not a git checkout with a remote and a commit: "
            "name what to publish with --repository and --ref"
        )
    refs = [ref]
    if checkout is not None and ref == checkout.commit and repository == checkout.repository:
        refs = list(checkout.ancestors)  # start from the nearest published ancestor
        if checkout.dirty:
            log.warning("%s has uncommitted changes; they are published under commit %s", root, ref)
    return PostgresStore(
        target.dsn,
        repository,
        ref,
        refs=refs,
        publish=True,
        keep=publication.keep,
        database_search=publication.database_search,
    )


def database_search_store(target: StoreTarget, root: Path) -> PostgresStore:
    """The team store to search in the database for the checkout at ``root`` (its commit,
    else the nearest ancestor published with search tables); InvalidArgumentError when there
    is no team store or the checkout cannot be keyed."""
    if target.dsn is None:
        raise InvalidArgumentError("searching in the database needs a postgresql:// store")
    from ragls.store.postgres import PostgresStore

    checkout = identify(root)
    if checkout is None:
        raise InvalidArgumentError(
            f"{root} is not a git checkout with a remote and a commit, so its team index "
            "cannot be found"
        )
    return PostgresStore(
        target.dsn, checkout.repository, checkout.commit, refs=checkout.ancestors, publish=False
    )

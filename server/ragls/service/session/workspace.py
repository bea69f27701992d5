"""The workspace layer: the one registry of sessions every front end uses (SPEC §1, §9).

A :class:`WorkspaceSession` is a session's RagService, its index scheduler
(:class:`~ragls.service.session.scheduler.SessionIndexer`), its change feed and its root. A folder
session's id is the folder's URI; it is indexed on start-up (unless configured off) and watched.
A named session (an assistant without a folder) indexes what it is told to, unwatched. Requests
that name no session go to the first workspace folder, or to a session called ``default`` when
there is no folder.

A session opened with a root keeps its index in a generation store unless the
``persistence.enabled`` setting is off (SPEC §11, :mod:`ragls.service.persistence.link`):
the embedded one by default, or a team index in PostgreSQL (chosen in
:mod:`ragls.service.persistence.stores`). Its first run starts from the stored generation,
and closing the session (or the workspace) saves what is not saved yet before the session is
dropped.

The change feed is injected: :class:`Workspace` takes a factory that builds one for a root
(the daemon passes its watchdog watcher; tests pass a fake; ``None`` leaves folders unwatched),
so this layer knows nothing of watchdog, pygls or any transport.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ragls.core.bm25 import BM25Stream
from ragls.errors import InvalidArgumentError, StoreError
from ragls.ingest.admission import Admission
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.indexer import FileIndexer
from ragls.ingest.parallel import WORKER_NICENESS
from ragls.ingest.partial import DEFAULT_PARTIAL_COMMITS
from ragls.service.guards.confinement import check_folder, check_index_path
from ragls.service.persistence.link import Persistence
from ragls.service.persistence.stores import open_store, store_target
from ragls.service.pipelines import pipeline_named
from ragls.service.rag_service import RagService
from ragls.service.session.debounce import Debouncer
from ragls.service.session.folders import uri_to_path, usable_folder
from ragls.service.session.scheduler import IndexArguments, IndexJob, SessionIndexer
from ragls.service.settings.options import WorkspaceOptions
from ragls.service.status import IndexStatus
from ragls.store.embedded import EmbeddedStore
from ragls.store.interface import GenerationStore

log = logging.getLogger(__name__)

DEFAULT_SESSION = "default"
MAX_SESSIONS = 256


class ChangeFeed(Protocol):
    """What watches a session's root: it hands changed paths to the debouncer it was built
    with, and says how well it is watching (``state``: watching, exhausted, polling, stopped,
    failed)."""

    root: Path
    state: str
    detail: str

    @property
    def watch_count(self) -> int: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def set_admission(self, admission: Admission) -> None: ...


ChangeFeedFactory = Callable[[Path, Admission, Debouncer], ChangeFeed]
Committed = Callable[[str, IndexStatus, "list[str] | None"], None]


@dataclass
class WorkspaceSession:
    id: str
    service: RagService
    indexer: SessionIndexer
    root: Path | None = None
    watcher: ChangeFeed | None = None
    debouncer: Debouncer | None = None
    folder: bool = False

    @property
    def stale(self) -> bool:
        """Whether the files have changes the index does not hold yet: events waiting in the
        debouncer, or a run queued or under way (SPEC §11: every answer says so)."""
        debouncer = self.debouncer
        return (debouncer is not None and debouncer.pending) or self.indexer.pending


def _ignore_commit(session: str, status: IndexStatus, changed: list[str] | None) -> None:
    return None


class Workspace:
    """The sessions of one process (the daemon's, the CLI's, a library user's SessionManager).

    ``on_committed`` hears every committed run (the daemon notifies its clients);
    ``change_feed`` builds a folder session's watcher (None: folders are not watched);
    ``service_factory`` builds a session's RagService (default: from ``options``);
    ``partial_commits``: whether a session's cold runs commit partial generations, so that
    searches answer while they read (ragls.ingest.partial); the CLI, which searches only once
    its run is done, turns them off.
    """

    def __init__(
        self,
        options: WorkspaceOptions | None = None,
        on_committed: Committed = _ignore_commit,
        *,
        change_feed: ChangeFeedFactory | None = None,
        service_factory: Callable[[], RagService] | None = None,
        max_sessions: int | None = MAX_SESSIONS,
        confined: bool = False,
        partial_commits: bool = True,
    ) -> None:
        self.options = options if options is not None else WorkspaceOptions()
        self._on_committed = on_committed
        self._change_feed = change_feed
        self._service_factory = service_factory
        self.max_sessions = max_sessions
        self.confined = confined  # the daemon's: see ragls.service.guards.confinement
        self.partial_commits = partial_commits
        self._lock = threading.Lock()
        self._watch_lock = threading.Lock()
        self._sessions: dict[str, WorkspaceSession] = {}
        self._order: list[str] = []

    # -- sessions ------------------------------------------------------------------------------

    def _new_service(self, root: Path | None) -> RagService:
        if self._service_factory is not None:
            return self._service_factory()
        options = self.options
        persistence = None
        if root is not None and options.persistence_enabled:
            persistence = Persistence(self._open_store(root))
        pipeline = pipeline_named(options.pipeline)
        bm25 = None  # the service builds what its pipeline needs: unbounded (SPEC §3)
        if pipeline.bm25 > 0:
            bm25 = BM25Stream(
                max_documents=options.bm25_max_documents, ttl_seconds=options.bm25_ttl_seconds
            )
        indexer = FileIndexer(options.limits, worker_niceness=_worker_niceness(options))
        service = RagService(
            bm25=bm25,
            indexer=indexer,
            pipeline=pipeline,
            persistence=persistence,
            partial_commits=DEFAULT_PARTIAL_COMMITS if self.partial_commits else None,
        )
        service.set_synonyms(options.synonyms)
        return service

    def _open_store(self, root: Path) -> GenerationStore:
        """The session's store (ragls.service.persistence.stores). A publication that cannot be made
        raises; a consumer whose store cannot be opened keeps its index in the embedded store,
        with the reason logged (the editor stays usable)."""
        options = self.options
        if options.publication is not None:
            target = store_target(options.persistence_store)
            return open_store(target, root, options.persistence_cache_dir, options.publication)
        try:
            target = store_target(options.persistence_store)
            return open_store(target, root, options.persistence_cache_dir)
        except (InvalidArgumentError, StoreError) as error:
            log.error("%s; keeping the index of %s in the embedded store", error, root)
            return EmbeddedStore(root, options.persistence_cache_dir)

    def index_arguments(self) -> IndexArguments:
        options = self.options
        return {
            "include": options.include,
            "exclude": options.exclude,
            "default_skips": options.default_skips,
            "detect_secrets": options.secret_detection,
            "secret_names": options.secret_names,
        }

    def open_session(
        self, session_id: str, root: Path | None = None, *, folder: bool = False
    ) -> WorkspaceSession:
        """The session called ``session_id``, created (with its service) on first use."""
        with self._lock:
            existing = self._sessions.get(session_id)
            if existing is not None:
                return existing
            if self.max_sessions is not None and len(self._sessions) >= self.max_sessions:
                raise InvalidArgumentError(f"at most {self.max_sessions} sessions can be open")
            service = self._new_service(root)
            indexer = SessionIndexer(session_id, service, self.index_arguments, self._on_committed)
            session = WorkspaceSession(session_id, service, indexer, root, folder=folder)
            self._sessions[session_id] = session
            self._order.append(session_id)
            return session

    def open_folder(self, uri: str) -> WorkspaceSession:
        root = uri_to_path(uri)
        usable_folder(root)
        if self.confined:
            check_folder(root, self._allowed())
        return self.open_session(uri, root, folder=True)

    def _allowed(self) -> list[Path]:
        return [Path(root) for root in self.options.allowed_roots]

    def check_index_path(self, path: str) -> None:
        """Refuse (InvalidArgumentError) an index path a confined workspace may not index."""
        if not self.confined:
            return
        folders = [s.root for s in self.sessions() if s.folder and s.root is not None]
        check_index_path(Path(path), folders, self._allowed())

    def close_session(self, session_id: str) -> bool:
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is None:
                return False
            self._order.remove(session_id)
        self._stop_watching(session)
        session.indexer.stop()
        _close_store(session)  # saved before the clear below, which must not reach the disk
        session.service.clear()  # outside the registry's lock: clear waits for a running index
        return True

    def find(self, session_id: str | None) -> WorkspaceSession | None:
        with self._lock:
            if session_id is None:
                folders = [s for s in self._order if self._sessions[s].folder]
                chosen = folders[0] if folders else None
                if chosen is None:
                    return None
                return self._sessions[chosen]
            return self._sessions.get(session_id)

    def get(self, session_id: str) -> WorkspaceSession | None:
        """The session called ``session_id`` if it is open; never creates one."""
        with self._lock:
            return self._sessions.get(session_id)

    def session_ids(self) -> list[str]:
        with self._lock:
            return list(self._order)

    def resolve(self, session_id: str | None) -> WorkspaceSession:
        """The session a request names (or the default one); InvalidArgumentError if unknown."""
        session = self.find(session_id)
        if session is not None:
            return session
        if session_id is None:
            return self.open_session(DEFAULT_SESSION, None, folder=False)
        raise InvalidArgumentError(f"session: unknown session {session_id!r}")

    def sessions(self) -> list[WorkspaceSession]:
        with self._lock:
            return [self._sessions[s] for s in self._order]

    # -- indexing ------------------------------------------------------------------------------

    def submit_index(self, session: WorkspaceSession, job: IndexJob) -> None:
        session.indexer.submit(job)

    def start_watching(self, session: WorkspaceSession) -> None:
        with self._watch_lock:  # start-up and rag/index may both ask, from different threads
            self._start_watching(session)

    def _start_watching(self, session: WorkspaceSession) -> None:
        if (
            self._change_feed is None
            or session.root is None
            or session.watcher is not None
            or not self.options.watch
        ):
            return
        indexer = session.indexer

        def flush(paths: set[str], full: bool) -> None:
            indexer.add_changes(paths, rescan=full)

        session.debouncer = Debouncer(flush, delay=self.options.debounce_ms / 1000)
        session.watcher = self._change_feed(
            session.root, self._admission(session.root), session.debouncer
        )
        session.watcher.start()

    def source_config(self, root: Path) -> KnowledgeSourceConfig:
        """The source a run of ``root`` reads, with the current options' selectors (what the
        watcher admits and what ``ragls mcp``'s ``read_span`` checks paths against)."""
        arguments = self.index_arguments()
        return KnowledgeSourceConfig(
            root.resolve(),
            arguments["include"],
            arguments["exclude"],
            default_skips=arguments["default_skips"],
            detect_secrets=arguments["detect_secrets"],
            secret_names=arguments["secret_names"],
        )

    def _admission(self, root: Path) -> Admission:
        return Admission(self.source_config(root), self.options.limits)

    def _stop_watching(self, session: WorkspaceSession) -> None:
        with self._watch_lock:
            self._stop_watching_locked(session)

    def _stop_watching_locked(self, session: WorkspaceSession) -> None:
        if session.watcher is not None:
            session.watcher.stop()
            session.watcher = None
        if session.debouncer is not None:
            session.debouncer.stop()
            session.debouncer = None

    def apply_options(self, options: WorkspaceOptions) -> None:
        """New options: synonyms, pipeline and debounce at once; limits and selectors on the
        next run (which is started for watched folders); BM25 cap/expiry for sessions created
        later."""
        previous, self.options = self.options, options
        for session in self.sessions():
            session.service.set_synonyms(options.synonyms)
            if options.pipeline != previous.pipeline:
                session.service.set_pipeline(options.pipeline)
            session.service.set_limits(options.limits)
            if options.low_priority_indexing != previous.low_priority_indexing:
                session.service.set_worker_niceness(_worker_niceness(options))
            if session.debouncer is not None:
                session.debouncer.delay = options.debounce_ms / 1000
            selectors_changed = (
                previous.include != options.include
                or previous.exclude != options.exclude
                or previous.default_skips != options.default_skips
                or previous.limits != options.limits
            )
            if session.watcher is not None and selectors_changed:
                session.watcher.set_admission(self._admission(session.watcher.root))
            if session.root is not None and selectors_changed:
                session.indexer.add_changes(set(), rescan=True)
            if options.watch and not previous.watch:
                self.start_watching(session)
            elif previous.watch and not options.watch:
                self._stop_watching(session)

    def rescan_unwatched(self) -> None:
        """Periodic safety net for folders whose watcher is not fully working."""
        for session in self.sessions():
            watcher = session.watcher
            if session.root is not None and watcher is not None and watcher.state != "watching":
                session.indexer.add_changes(set(), rescan=True)

    def stop(self) -> None:
        for session in self.sessions():
            self._stop_watching(session)
            session.indexer.cancel_all()
        for session in self.sessions():
            session.indexer.stop()
            _close_store(session)


def _worker_niceness(options: WorkspaceOptions) -> int:
    return WORKER_NICENESS if options.low_priority_indexing else 0


def _close_store(session: WorkspaceSession) -> None:
    """Save what the session has not saved yet and give its store up (never raises)."""
    persistence = session.service.persistence
    if persistence is None:
        return
    try:
        persistence.close()
    except Exception:
        log.exception("session %s: closing its stored index failed", session.id)

"""The daemon's sessions: one per workspace folder plus named ones (SPEC §9).

A folder session's id is the folder's URI; it is indexed on start-up (unless configured off) and
watched. A named session (an assistant without a folder) is created by ``rag/createSession`` and
indexes what ``rag/index`` names, unwatched. Requests that name no session go to the first
workspace folder, or to a session called ``default`` when there is no folder.

This module is transport-free: the server module wires it to pygls.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ragls.core.bm25 import BM25Stream
from ragls.errors import InvalidArgumentError
from ragls.ingest.admission import Admission
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.lsp.debounce import Debouncer
from ragls.lsp.options import DaemonOptions
from ragls.lsp.scheduler import IndexJob, SessionIndexer
from ragls.lsp.watcher import WorkspaceWatcher
from ragls.service.pipelines import pipeline_named
from ragls.service.rag_service import RagService
from ragls.service.sessions import SessionManager
from ragls.service.status import IndexStatus

log = logging.getLogger(__name__)

DEFAULT_SESSION = "default"
MAX_SESSIONS = 256


def uri_to_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidArgumentError(f"only file:// workspace folders are supported, got {uri!r}")
    return Path(unquote(parsed.path))


@dataclass
class DaemonSession:
    id: str
    service: RagService
    indexer: SessionIndexer
    root: Path | None = None
    watcher: WorkspaceWatcher | None = None
    debouncer: Debouncer | None = None
    folder: bool = False


class Daemon:
    def __init__(
        self,
        options: DaemonOptions,
        on_committed: Callable[[str, IndexStatus, list[str] | None], None],
    ) -> None:
        self.options = options
        self._on_committed = on_committed
        self._manager = SessionManager(self._new_service)
        self._lock = threading.Lock()
        self._watch_lock = threading.Lock()
        self._sessions: dict[str, DaemonSession] = {}
        self._order: list[str] = []

    # -- sessions ------------------------------------------------------------------------------

    def _new_service(self) -> RagService:
        options = self.options
        pipeline = pipeline_named(options.pipeline)
        bm25 = None  # the service builds what its pipeline needs: unbounded (SPEC §3)
        if pipeline.bm25 > 0:
            bm25 = BM25Stream(
                max_documents=options.bm25_max_documents, ttl_seconds=options.bm25_ttl_seconds
            )
        service = RagService(bm25=bm25, limits=options.limits, pipeline=pipeline)
        service.set_synonyms(options.synonyms)
        return service

    def index_arguments(self) -> dict[str, object]:
        options = self.options
        return {
            "include": options.include,
            "exclude": options.exclude,
            "default_skips": options.default_skips,
        }

    def open_session(self, session_id: str, root: Path | None, *, folder: bool) -> DaemonSession:
        with self._lock:
            existing = self._sessions.get(session_id)
            if existing is not None:
                return existing
            if len(self._sessions) >= MAX_SESSIONS:
                raise InvalidArgumentError(f"at most {MAX_SESSIONS} sessions can be open")
            service = self._manager.get_rag(session_id)
            indexer = SessionIndexer(session_id, service, self.index_arguments, self._on_committed)
            session = DaemonSession(session_id, service, indexer, root, folder=folder)
            self._sessions[session_id] = session
            self._order.append(session_id)
            return session

    def open_folder(self, uri: str) -> DaemonSession:
        return self.open_session(uri, uri_to_path(uri), folder=True)

    def close_session(self, session_id: str) -> bool:
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is None:
                return False
            self._order.remove(session_id)
        self._stop_watching(session)
        session.indexer.stop()
        self._manager.remove_session(session_id)
        return True

    def find(self, session_id: str | None) -> DaemonSession | None:
        with self._lock:
            if session_id is None:
                folders = [s for s in self._order if self._sessions[s].folder]
                chosen = folders[0] if folders else None
                if chosen is None:
                    return None
                return self._sessions[chosen]
            return self._sessions.get(session_id)

    def resolve(self, session_id: str | None) -> DaemonSession:
        """The session a request names (or the default one); InvalidArgumentError if unknown."""
        session = self.find(session_id)
        if session is not None:
            return session
        if session_id is None:
            return self.open_session(DEFAULT_SESSION, None, folder=False)
        raise InvalidArgumentError(f"session: unknown session {session_id!r}")

    def sessions(self) -> list[DaemonSession]:
        with self._lock:
            return [self._sessions[s] for s in self._order]

    # -- indexing ------------------------------------------------------------------------------

    def submit_index(self, session: DaemonSession, job: IndexJob) -> None:
        session.indexer.submit(job)

    def start_watching(self, session: DaemonSession) -> None:
        with self._watch_lock:  # start-up and rag/index may both ask, from different threads
            self._start_watching(session)

    def _start_watching(self, session: DaemonSession) -> None:
        if session.root is None or session.watcher is not None or not self.options.watch:
            return
        indexer = session.indexer

        def flush(paths: set[str], full: bool) -> None:
            indexer.add_changes(paths, rescan=full)

        session.debouncer = Debouncer(flush, delay=self.options.debounce_ms / 1000)
        session.watcher = WorkspaceWatcher(
            session.root, self._admission(session.root), session.debouncer
        )
        session.watcher.start()

    def _admission(self, root: Path) -> Admission:
        options = self.options
        config = KnowledgeSourceConfig(
            root.resolve(), options.include, options.exclude, default_skips=options.default_skips
        )
        return Admission(config, options.limits)

    def _stop_watching(self, session: DaemonSession) -> None:
        with self._watch_lock:
            self._stop_watching_locked(session)

    def _stop_watching_locked(self, session: DaemonSession) -> None:
        if session.watcher is not None:
            session.watcher.stop()
            session.watcher = None
        if session.debouncer is not None:
            session.debouncer.stop()
            session.debouncer = None

    def apply_options(self, options: DaemonOptions) -> None:
        """New options: synonyms, pipeline and debounce at once; limits and selectors on the
        next run (which is started for watched folders); BM25 cap/expiry for sessions created
        later."""
        previous, self.options = self.options, options
        for session in self.sessions():
            session.service.set_synonyms(options.synonyms)
            if options.pipeline != previous.pipeline:
                session.service.set_pipeline(options.pipeline)
            session.service.set_limits(options.limits)
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

"""One index worker thread per session: explicit runs and coalesced watcher changes (SPEC §9).

Every index run of a session happens on its :class:`SessionIndexer` thread (started by the first
job or change, so a session only searched costs no thread), off any event loop.
Requests for a full run (start-up, ``rag/index``, a rescan) are queued as :class:`IndexJob` values
whose futures the handlers await; changed paths from the watcher pile up while a run is busy and
go into the next changed-paths run together, so a burst of thousands of events costs a handful of
runs. After each committed run ``on_committed`` is called (the daemon notifies clients).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from ragls.errors import IndexCancelledError, RaglsError
from ragls.service.rag_service import RagService
from ragls.service.status import IndexProgress, IndexStatus

log = logging.getLogger(__name__)


class IndexArguments(TypedDict):
    """The source selection every run of a session passes to ``RagService.index_directory``."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    default_skips: frozenset[str]
    detect_secrets: bool
    secret_names: tuple[str, ...]


ConfigSource = Callable[[], IndexArguments]


@dataclass
class IndexJob:
    path: str
    force: bool = False
    progress: Callable[[IndexProgress], None] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    future: concurrent.futures.Future[IndexStatus] = field(
        default_factory=concurrent.futures.Future
    )


class SessionIndexer:
    def __init__(
        self,
        name: str,
        service: RagService,
        index_arguments: ConfigSource,
        on_committed: Callable[[str, IndexStatus, list[str] | None], None],
    ) -> None:
        self.name = name
        self.service = service
        self._arguments = index_arguments
        self._on_committed = on_committed
        self._condition = threading.Condition()
        self._jobs: list[IndexJob] = []
        self._changes: set[str] = set()
        self._rescan = False
        self._root: str | None = None
        self._stopped = False
        self.runs = 0
        self.changed_runs = 0
        self._thread: threading.Thread | None = None
        self._busy = False

    def _ensure_thread(self) -> None:
        """Start the index thread (condition held)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name=f"ragls-index-{self.name}", daemon=True
            )
            self._thread.start()

    def submit(self, job: IndexJob) -> concurrent.futures.Future[IndexStatus]:
        with self._condition:
            if self._stopped:
                job.future.set_exception(RaglsError("the session was closed"))
            else:
                self._ensure_thread()
                self._jobs.append(job)
                self._condition.notify()
        return job.future

    def add_changes(self, paths: set[str], rescan: bool = False) -> None:
        """Changed paths (relative to the session root) for the next changed-paths run."""
        with self._condition:
            if self._stopped:
                return
            self._ensure_thread()
            self._changes |= paths
            self._rescan = self._rescan or rescan
            self._condition.notify()

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            jobs, self._jobs = self._jobs, []
            for job in jobs:
                job.cancel.set()
                if job.future.set_running_or_notify_cancel():  # not cancelled by its requester
                    job.future.set_exception(RaglsError("the session was closed"))
            self._condition.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=10)

    def cancel_all(self) -> None:
        with self._condition:
            for job in self._jobs:
                job.cancel.set()

    def _loop(self) -> None:
        while True:
            with self._condition:
                while not self._stopped and not self._jobs and not self._pending_changes():
                    self._condition.wait()
                if self._stopped:
                    return
                if self._jobs:
                    job: IndexJob | None = self._jobs.pop(0)
                    changes: set[str] = set()
                else:
                    job = None
                    changes, self._changes = self._changes, set()
                    rescan, self._rescan = self._rescan, False
                self._busy = True
            try:
                if job is not None:
                    self._run_job(job)
                elif rescan:
                    self._run_rescan()
                else:
                    self._run_changes(changes)
            except Exception:  # the session's only index thread must outlive any one run
                log.exception("session %s: an index run failed unexpectedly", self.name)
            finally:
                with self._condition:
                    self._busy = False

    @property
    def pending(self) -> bool:
        """Whether work is queued or running: a run, changed paths or a rescan not yet
        committed (answers say ``stale`` while it is)."""
        with self._condition:
            return self._busy or bool(self._jobs) or bool(self._changes) or self._rescan

    def _pending_changes(self) -> bool:
        return self._root is not None and (bool(self._changes) or self._rescan)

    def _run_job(self, job: IndexJob) -> None:
        # A future the requester cancelled ($/cancelRequest) before the run started is dropped;
        # once running it cannot be cancelled, the requester sets ``job.cancel`` instead and the
        # run ends with IndexCancelledError (setting a result on a cancelled future would raise
        # and kill this thread: every later run of the session would hang).
        if not job.future.set_running_or_notify_cancel():
            return
        if job.cancel.is_set():
            job.future.set_exception(IndexCancelledError("index run cancelled before it started"))
            return
        try:
            status = self.service.index_directory(
                job.path,
                job.progress,
                force=job.force,
                cancelled=job.cancel.is_set,
                **self._arguments(),
            )
        except BaseException as error:  # the future carries it to the request
            job.future.set_exception(error)
            return
        self.runs += 1
        with self._condition:
            self._root = job.path
        job.future.set_result(status)
        self._notify(status, None)

    def _run_changes(self, changes: set[str]) -> None:
        root = self._root
        if root is None:
            return
        try:
            status = self.service.index_directory(
                root,
                changed_paths=sorted(changes),
                **self._arguments(),
            )
        except RaglsError as error:
            log.warning(
                "session %s: re-indexing %d changed paths failed: %s",
                self.name,
                len(changes),
                error,
            )
            return
        except Exception:
            log.exception("session %s: re-indexing changed paths failed", self.name)
            return
        self.runs += 1
        self.changed_runs += 1
        self._notify(status, sorted(changes))

    def _run_rescan(self) -> None:
        root = self._root
        if root is None:
            return
        try:
            status = self.service.index_directory(root, **self._arguments())
        except Exception:
            log.exception("session %s: rescan failed", self.name)
            return
        self.runs += 1
        self._notify(status, None)

    def _notify(self, status: IndexStatus, changed: list[str] | None) -> None:
        try:
            self._on_committed(self.name, status, changed)
        except Exception:
            log.exception("notifying clients of a new generation failed")
        try:  # the run's symbols into the per-name maps, here rather than in the next query
            self.service.symbol_index.count_names()
        except Exception:
            log.exception("counting the symbol index's names failed")

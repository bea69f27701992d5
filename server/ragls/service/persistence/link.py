"""One session's link to its generation store: warm start, when to save, what status says.

The service asks :class:`Persistence` to load before its first run and tells it after every
change (:meth:`Persistence.changed`); saving happens on a thread of its own once changes have
been quiet for ``quiet_seconds`` (or at the latest ``max_delay_seconds`` after the first unsaved
one), so a burst of saves in the editor costs one write, and a search never waits for one. The
CLI and a closing session call :meth:`flush` to save at once.

Why a save may lag: the stored generation only has to be *a* whole generation of this
workspace. A start reconciles it with the disk through the fingerprint path, so an edit made
after the last save (or while the process was down) is re-read then, whatever the lag; the
lag costs a few re-read files, never a wrong answer. Added documents are kept in memory until
the next save.

What is never fatal (SPEC §11): a store that cannot be read gives a cold start with the reason
logged; a store that cannot be written (read-only or full cache directory) leaves the index in
memory with the reason in status, and saving is tried again after the next change. A process
that is not the writer (another process holds the workspace's lock) loads the published
generation, keeps its own changes in memory, and says in status who owns the index; it takes
over as writer at its next save once the owner is gone. A writer whose lock file was removed
under it (``rm -rf`` of the cache) and taken by another process becomes such a reader, with
the reason in status (:mod:`ragls.store.embedded`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ragls.errors import StoreError
from ragls.service.status import PersistenceStatus
from ragls.store.interface import GenerationStore, LoadResult, StoreInfo

log = logging.getLogger(__name__)

QUIET_SECONDS = 2.0
MAX_DELAY_SECONDS = 30.0


class Persistence:
    def __init__(
        self,
        store: GenerationStore,
        *,
        quiet_seconds: float = QUIET_SECONDS,
        max_delay_seconds: float = MAX_DELAY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.quiet_seconds = quiet_seconds
        self.max_delay_seconds = max_delay_seconds
        self._clock = clock
        self._condition = threading.Condition()
        self._save_lock = threading.Lock()
        self._save: Callable[[], None] | None = None
        self._first_change: float | None = None
        self._last_change = 0.0
        self._thread: threading.Thread | None = None
        self._closed = False
        self.attempted_load = False
        self.state = "cold"
        self.detail = ""
        self.loaded_generation: int | None = None
        self.load_seconds: float | None = None
        self.problem = ""  # why the stored generation was refused (shown to readers too)
        self.unreadable = False  # the store could not be read at all (down, unreachable)
        self.saves = 0

    def bind(self, save: Callable[[], None]) -> None:
        """What a save does (the service's: capture a generation and write it)."""
        self._save = save

    # -- loading -------------------------------------------------------------------------------

    def become_writer(self) -> bool:
        """Try to be the workspace's writer; False (and the state says why) if not."""
        try:
            if self.store.acquire():
                return True
        except StoreError as error:
            if self.detail != str(error):
                log.warning("%s; the index stays in memory", error)
            self._set("failed", str(error))
            return False
        self._set("reader", _reader_text(self.store.info()))
        return False

    def load(self, config_key: str) -> LoadResult:
        """The stored generation for ``config_key`` (the reason is logged when there is none)."""
        self.attempted_load = True
        writer = self.become_writer()
        started = time.perf_counter()
        try:
            result = self.store.load(config_key)
        except Exception as error:  # a store's bug must cost a cold start, not the session
            log.exception("%s: loading the stored index failed", self.store.location)
            result = LoadResult(None, f"loading the stored index failed: {error!r}")
        if result.snapshot is None:
            if result.discarded:
                log.warning(
                    "%s: %s; rebuilding it from the files", self.store.location, result.reason
                )
                self.problem = result.reason
                if writer:
                    self.store.discard()
            elif result.warning:
                log.warning("%s: %s; indexing from the files", self.store.location, result.reason)
                self.problem = result.reason
                self.unreadable = True
            else:
                log.info("%s: %s", self.store.location, result.reason)
            if writer:
                self._set("cold", result.reason)
        else:
            self.load_seconds = time.perf_counter() - started
        return result

    def loaded(self, generation: int) -> None:
        self.loaded_generation = generation
        if self.state not in ("reader", "failed"):  # a failure to write stays shown
            self._set("loaded", "")

    def refused(self, reason: str) -> None:
        """A loaded generation did not fit the service: discard it like a corrupt one."""
        log.warning(
            "%s: the stored generation is unusable: %s; rebuilding it", self.store.location, reason
        )
        self.loaded_generation = None
        self.load_seconds = None
        self.problem = f"the stored generation is unusable: {reason}"
        if self.state != "reader":
            self.store.discard()
            self._set("cold", reason)

    # -- saving --------------------------------------------------------------------------------

    def changed(self) -> None:
        """The index in memory changed: save it once changes are quiet."""
        with self._condition:
            if self._closed:
                return
            now = self._clock()
            if self._first_change is None:
                self._first_change = now
            self._last_change = now
            if self.state in ("saved", "loaded", "cold"):
                self.state = "unsaved"
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="ragls-save", daemon=True)
                self._thread.start()
            self._condition.notify_all()

    def flush(self) -> bool:
        """Save now if anything is unsaved; True if the stored generation is current."""
        with self._save_lock:
            with self._condition:
                if self._first_change is None:
                    return self.state in ("saved", "loaded", "cold")
                self._first_change = None
            return self._save_now()

    def _save_now(self) -> bool:
        if self._save is None:
            return False
        if not self.become_writer():
            return False
        try:
            self._save()
        except StoreError as error:
            info = self.store.info()
            if not info.writer and info.note:  # no longer the writer (its lock file was removed)
                self._set("reader", _reader_text(info))
                return False
            if self.detail != str(error):
                log.warning("%s; the index stays in memory", error)
            self._set("failed", str(error))
            return False
        except Exception as error:  # a bug must not take the session down with it
            log.exception("saving the index failed")
            self._set("failed", f"saving the index failed: {error}")
            return False
        self.saves += 1
        with self._condition:
            if self._first_change is None:
                self._set("saved", "")
        return True

    def _loop(self) -> None:
        while True:
            with self._condition:
                while not self._closed and not self._due():
                    self._condition.wait(self._wait_time())
                if self._closed:
                    return
            self.flush()

    def _due(self) -> bool:
        first = self._first_change
        if first is None:
            return False
        now = self._clock()
        return (
            now - self._last_change >= self.quiet_seconds or now - first >= self.max_delay_seconds
        )

    def _wait_time(self) -> float | None:
        first = self._first_change
        if first is None:
            return None
        now = self._clock()
        until = min(self._last_change + self.quiet_seconds, first + self.max_delay_seconds)
        return max(0.01, until - now)

    def close(self) -> None:
        """Save what is unsaved, stop the saving thread and give the writer lock up."""
        self.flush()
        with self._condition:
            self._closed = True
            self._condition.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)
        self.store.release()

    # -- status --------------------------------------------------------------------------------

    def _set(self, state: str, detail: str) -> None:
        self.state, self.detail = state, detail

    def warnings(self) -> tuple[str, ...]:
        """What the user must be told about the stored index, each naming its cause (the CLI
        prints them and puts them in ``--json`` ``warnings``; status lists them too)."""
        return self._warnings(self.store.info())

    def _warnings(self, info: StoreInfo) -> tuple[str, ...]:
        found = []
        if self.problem and self.loaded_generation is None:
            found.append(
                f"the stored index was not used: {self.problem}; this index was built from the "
                "files"
            )
        if self.state == "failed":
            found.append(f"the index is not saved: {self.detail}")
        if not info.writer and info.note and not self.store.shared:  # its lock file removed
            found.append(f"the index is not saved: {info.note}")
        if info.problem:
            found.append(info.problem)
        return tuple(found)

    def status(self) -> PersistenceStatus:
        info = self.store.info()
        state, detail = self.state, self.detail
        if state == "reader" or (not info.writer and (info.owner_pid is not None or info.note)):
            state, detail = "reader", _reader_text(info)
            if self.unreadable and self.loaded_generation is None:
                # It reads nothing from the store it names: say so, and why, not its note.
                detail = (
                    f"fell back to a local index built from the files, kept in memory: "
                    f"{self.problem}"
                )
            elif self.problem:  # a reader discards nothing, but must say it indexed the files
                detail = f"{detail}; {self.problem}, so this index was built from the files"
        return PersistenceStatus(
            state=state,
            location=info.location,
            bytes_on_disk=info.bytes_on_disk,
            stored_generation=info.generation,
            written_at=info.written_at,
            writer=info.writer,
            owner_pid=info.owner_pid,
            detail=detail,
            loaded_generation=self.loaded_generation,
            load_seconds=self.load_seconds,
            warnings=self._warnings(info),
        )


def _reader_text(info: StoreInfo) -> str:
    return info.note or _owner_text(info.owner_pid)


def _owner_text(owner: int | None) -> str:
    who = f"process {owner}" if owner else "another process"
    return f"{who} owns this workspace's index; this one keeps its changes in memory"

"""Watching a session's workspace for changes (SPEC §9).

Each directory the walk would enter gets its own non-recursive inotify watch, all on one
inotify descriptor read by one thread (watchdog's ``InotifyFD``); directories that are ignored or
default-skipped (``node_modules``, ``.git``, ``build``...) get none, so a big ``node_modules``
costs no watches. New directories get watches as they appear, removed ones lose theirs, and a
change to an ignore file re-evaluates the watches below its directory. Events only enqueue paths
into the :class:`~ragls.service.session.debounce.Debouncer`; the admission of each path is
decided by the changed-paths index run, with the same rules as the walk.

If the kernel refuses a watch (``ENOSPC``: the inotify watch limit is exhausted), the watcher
says so in :attr:`state` and asks for full rescans instead; the daemon then relies on the
client's ``workspace/didChangeWatchedFiles`` or on periodic rescans. On platforms without
inotify, watchdog's portable observer watches the root recursively and events are filtered the
same way.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
from pathlib import Path
from typing import Any

from ragls.ingest.admission import Admission
from ragls.ingest.ignore.defaults import ALWAYS_SKIPPED_DIRS, is_ignore_file_name
from ragls.service.session.debounce import Debouncer

log = logging.getLogger(__name__)

try:  # Linux
    from watchdog.observers.inotify_c import InotifyConstants, InotifyEvent, InotifyFD

    HAVE_INOTIFY = True
except (ImportError, OSError):  # pragma: no cover - other platforms
    HAVE_INOTIFY = False

_DIRECTORY_MASK = 0
if HAVE_INOTIFY:
    _DIRECTORY_MASK = (
        InotifyConstants.IN_CREATE
        | InotifyConstants.IN_DELETE
        | InotifyConstants.IN_MODIFY
        | InotifyConstants.IN_CLOSE_WRITE
        | InotifyConstants.IN_MOVED_FROM
        | InotifyConstants.IN_MOVED_TO
        | InotifyConstants.IN_ATTRIB
        | InotifyConstants.IN_DELETE_SELF
        | InotifyConstants.IN_MOVE_SELF
        | InotifyConstants.IN_ONLYDIR
        | InotifyConstants.IN_DONT_FOLLOW
        | InotifyConstants.IN_EXCL_UNLINK
    )


class WorkspaceWatcher:
    """Feeds changed paths (POSIX, relative to ``root``) of one workspace into ``debouncer``."""

    def __init__(self, root: Path, admission: Admission, debouncer: Debouncer) -> None:
        self.root = root
        self._admission = admission
        self._debouncer = debouncer
        self._lock = threading.RLock()
        self._directory_by_wd: dict[int, str] = {}
        self._wd_by_directory: dict[str, int] = {}
        self._inotify: Any = None
        self._observer: Any = None
        self.state = "stopped"  # watching | exhausted | polling | stopped | failed
        self.detail = ""

    @property
    def watch_count(self) -> int:
        with self._lock:
            return len(self._wd_by_directory)

    def watched_directories(self) -> list[str]:
        with self._lock:
            return sorted(self._wd_by_directory)

    def start(self) -> None:
        if not HAVE_INOTIFY:  # pragma: no cover - other platforms
            self._start_portable()
            return
        try:
            self._inotify = InotifyFD()
            self._inotify.start()
        except OSError as error:
            self._fail(f"inotify is unavailable: {error}")
            return
        self.state = "watching"
        self._watch_tree("")

    def stop(self) -> None:
        with self._lock:
            inotify, self._inotify = self._inotify, None
            observer, self._observer = self._observer, None
            self._directory_by_wd.clear()
            self._wd_by_directory.clear()
            self.state = "stopped"
        if inotify is not None:
            inotify.stop()
            inotify.join(timeout=5)
        if observer is not None:  # pragma: no cover - other platforms
            observer.stop()
            observer.join(timeout=5)

    def set_admission(self, admission: Admission) -> None:
        """Use new rules (configuration changed) and re-evaluate every watch."""
        with self._lock:
            self._admission = admission
        self.resync("")

    def resync(self, directory: str) -> None:
        """Re-evaluate the watches at and below ``directory`` (its ignore rules changed)."""
        if self._inotify is None:
            return
        with self._lock:
            self._admission.stack.forget_all()
            self._unwatch_tree(directory, keep_self=True)
            self._watch_tree(directory)

    # -- inotify callbacks (reader thread) ------------------------------------------------------

    def on_event(self, event: InotifyEvent) -> None:
        with self._lock:
            directory = self._directory_by_wd.get(event.wd)
        if directory is None:
            return
        name = os.fsdecode(event.name)
        if not name:  # the watched directory itself was deleted or moved
            self._debouncer.add(directory)
            with self._lock:
                self._unwatch_tree(directory, keep_self=False)
            return
        relative = f"{directory}/{name}" if directory else name
        if name.lower() in ALWAYS_SKIPPED_DIRS and event.is_directory:
            return  # never watched, never indexed: not even worth a run
        if event.is_directory:
            if event.is_create or event.is_moved_to:
                with self._lock:
                    self._watch_tree(relative)
            elif event.is_delete or event.is_moved_from:
                with self._lock:
                    self._unwatch_tree(relative, keep_self=False)
        elif is_ignore_file_name(name) and not (event.is_modify and not event.is_close_write):
            self.resync(directory)
        if event.is_modify and not event.is_directory:
            return  # the CLOSE_WRITE that follows is enough; a burst of writes is one change
        self._debouncer.add(relative)

    def on_watch_deleted(self, wd: int) -> None:
        with self._lock:
            directory = self._directory_by_wd.pop(wd, None)
            if directory is not None:
                self._wd_by_directory.pop(directory, None)

    def on_queue_overflow(self) -> None:
        log.warning("inotify queue overflowed below %s; rescanning", self.root)
        self._debouncer.add_full()
        self.resync("")

    # -- watches (lock held) --------------------------------------------------------------------

    def _watch_tree(self, start: str) -> None:
        """Watch ``start`` and every directory below it that the walk would enter."""
        if start and self._admission.directory_path_verdict(start) is not None:
            return
        pending = [start]
        while pending and self.state == "watching":
            directory = pending.pop()
            if not self._add_watch(directory):
                return
            absolute = self.root / directory if directory else self.root
            try:
                with os.scandir(absolute) as entries:
                    names = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            for name in names:
                relative = f"{directory}/{name}" if directory else name
                if self._admission.directory_verdict(relative) is None:
                    pending.append(relative)

    def _add_watch(self, directory: str) -> bool:
        if directory in self._wd_by_directory or self._inotify is None:
            return True
        path = os.fsencode(self.root / directory if directory else self.root)
        try:
            wd = self._inotify.add_callback(path, _DIRECTORY_MASK, self, id(self))
        except OSError as error:
            if error.errno == errno.ENOSPC:
                self.state = "exhausted"
                self.detail = (
                    f"the inotify watch limit was reached after {len(self._wd_by_directory)} "
                    "watches (raise fs.inotify.max_user_watches); falling back to rescans"
                )
                log.warning("%s: %s", self.root, self.detail)
                self._debouncer.add_full()
                return False
            return True  # vanished meanwhile, or unreadable: nothing to watch
        self._directory_by_wd[wd] = directory
        self._wd_by_directory[directory] = wd
        return True

    def _unwatch_tree(self, directory: str, *, keep_self: bool) -> None:
        prefix = f"{directory}/" if directory else ""
        doomed = [
            (path, wd)
            for path, wd in self._wd_by_directory.items()
            if (path == directory and not keep_self)
            or (path != directory and path.startswith(prefix))
        ]
        if not doomed:
            return
        for path, wd in doomed:
            self._wd_by_directory.pop(path, None)
            self._directory_by_wd.pop(wd, None)
        if self._inotify is not None:
            with contextlib.suppress(OSError):
                self._inotify.remove_callbacks([(wd, id(self)) for _, wd in doomed])

    def _fail(self, detail: str) -> None:
        self.state = "failed"
        self.detail = detail
        log.warning("%s: %s", self.root, detail)

    def _start_portable(self) -> None:  # pragma: no cover - other platforms
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                for raw in (event.src_path, getattr(event, "dest_path", "")):
                    if not raw:
                        continue
                    try:
                        relative = Path(os.fsdecode(raw)).relative_to(watcher.root).as_posix()
                    except ValueError:
                        continue
                    if not any(p.lower() in ALWAYS_SKIPPED_DIRS for p in relative.split("/")):
                        watcher._debouncer.add(relative)

        self._observer = Observer()
        self._observer.schedule(Handler(), str(self.root), recursive=True)
        self._observer.start()
        self.state = "polling"

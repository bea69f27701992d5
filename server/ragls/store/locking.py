"""Advisory file locks: the one-writer lock of a workspace and readers' locks on generations.

The writer lock is an exclusive lock on ``writer.lock`` held for as long as the process writes
that workspace's generations; the file holds the owner's pid so that other processes can say
who owns the index. The operating system releases the lock when its holder dies, whatever the
death (kill -9 included), so the lock of a dead process is simply taken over: the pid left in
the file is then overwritten. A reader holds a shared lock on a generation's ``readers.lock``
while it loads; the writer removes an old generation only if it can lock that file exclusively.

Lock files are opened through :mod:`ragls.store.boundary`: a link, a FIFO or another user's
file in place of one is refused, never followed, truncated or waited on.

A lock is held on an open file, not on a name: if ``writer.lock`` is removed (``rm -rf`` of the
cache) or replaced while a process holds it, the next process creates a new file and locks that,
and two processes would each believe they are the writer. So the holder checks, before each
write and each removal (:meth:`WriterLock.confirm`), that the file it holds is still the one at
the path (same device and inode); if not, it lets the orphan go and tries to lock the file now
there (creating it if it is gone). Either it holds the lock again, or another process holds it
and this one is no longer the writer.

POSIX ``flock``; on Windows ``msvcrt.locking`` over the file's first byte (exclusive only, so
there readers lock exclusively too, briefly, which is still correct).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragls.store.boundary import UnsafeEntry, open_file

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


def _try_lock(fd: int, exclusive: bool, wait: bool) -> bool:
    if fcntl is not None:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, mode if wait else mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    try:  # pragma: no cover - Windows
        msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:  # pragma: no cover - Windows
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


class WriterLock:
    """The exclusive, pid-stamped lock of one workspace's store."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock if no live process holds it (OSError if the file cannot be opened,
        UnsafeEntry if it is not a regular file of this user)."""
        if self._fd is not None:
            return True
        fd = open_file(self.path, os.O_RDWR | os.O_CREAT)
        if not _try_lock(fd, exclusive=True, wait=False):
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return True

    def lost(self) -> bool:
        """Whether the lock this process holds is no longer on the file at :attr:`path` (it
        was removed or replaced); False when no lock is held."""
        fd = self._fd
        if fd is None:
            return False
        held = os.fstat(fd)
        try:
            found = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return True
        return (found.st_dev, found.st_ino) != (held.st_dev, held.st_ino)

    def confirm(self) -> bool:
        """Whether this process still holds the writer lock: if the file it locked was removed
        or replaced, the orphaned lock is let go and the file at :attr:`path` locked instead
        (created if it is gone; the caller re-creates the folder). False when no lock is held
        or another process holds the new one (OSError or UnsafeEntry as :meth:`try_acquire`
        raises them, the old lock let go)."""
        if self._fd is None:
            return False
        if not self.lost():
            return True
        self.release()
        return self.try_acquire()

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            _unlock(fd)
            os.close(fd)

    def owner_pid(self) -> int | None:
        """The pid written by the current holder, if another process holds the lock."""
        if self._fd is not None:
            return None
        try:
            fd = open_file(self.path, os.O_RDWR)
        except OSError:
            return None
        try:
            if _try_lock(fd, exclusive=True, wait=False):  # nobody holds it
                _unlock(fd)
                return None
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else None
        finally:
            os.close(fd)


@contextmanager
def reading(path: Path | str, *, dir_fd: int | None = None) -> Iterator[None]:
    """Hold a shared lock on ``path`` (relative to ``dir_fd`` if given) while a generation is
    read (FileNotFoundError if the generation was removed meanwhile: the caller reads the
    pointer again; UnsafeEntry if the file is not a regular one)."""
    fd = open_file(path, dir_fd=dir_fd)
    try:
        _try_lock(fd, exclusive=fcntl is None, wait=True)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def unused(path: Path) -> bool:
    """Whether no process is reading the generation whose readers' lock is ``path``."""
    try:
        fd = open_file(path)
    except (FileNotFoundError, UnsafeEntry):
        return True  # no reader can hold a lock on what readers refuse to open
    try:
        if not _try_lock(fd, exclusive=True, wait=False):
            return False
        _unlock(fd)
        return True
    finally:
        os.close(fd)

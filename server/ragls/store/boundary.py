"""The cache folder as a boundary (docs/security.md, "The stored index"; SPEC §11).

Everything the stores open, create or remove under the cache root goes through here, so that
what lies there (put by another user of a shared cache, by a damaged disk or by a stray tool)
can make ragls refuse its cache and index from the files, but never write, read or delete
anything outside it, nor wait forever:

* a file is opened without following a link (``O_NOFOLLOW``) and without waiting for a writer
  (``O_NONBLOCK``, which only a FIFO or a device notices), then checked after opening to be a
  regular file of this user; anything else is an :class:`UnsafeEntry` naming what it is;
* a folder ragls creates is made ``0700`` (missing parents of the cache root too); a folder it
  uses must be a folder of this user, not a link to one (the cache root may be reached through
  links: it is the user's choice), and not writable by anybody else. One that others may only
  read (a cache root an older ragls made ``0755``) is tightened to ``0700``;
* entries of a checked folder are opened, listed and removed relative to its descriptor
  (:class:`FolderHandle`), so a link swapped in for the folder after the check is never
  followed; a folder is removed only when ``lstat`` says it is one, by ``shutil.rmtree``,
  which on POSIX walks by descriptors and removes a link, never what it points to.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_OTHERS = 0o077  # permission bits of the group and of everybody else
_OTHERS_WRITE = 0o022
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BY_DESCRIPTOR = os.open in os.supports_dir_fd and os.scandir in os.supports_fd


class UnsafeEntry(OSError):
    """An entry under the cache root that ragls will not use: a link, a FIFO, a socket, a
    device, or a folder of another user or writable by others (the message says which)."""


def _user() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def kind_of(mode: int) -> str:
    """What an entry is, in words (for the messages that refuse it)."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return name
    return "an entry of unknown type"


def _refusal(path: Path | str, dir_fd: int | None) -> UnsafeEntry | None:
    """Why ``path`` failed to open, when the cause is what it is (a link, a FIFO, ...)."""
    try:
        found = os.lstat(path, dir_fd=dir_fd)
    except OSError:
        return None
    if stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode):
        return None
    return UnsafeEntry(
        f"{path} is {kind_of(found.st_mode)}; ragls follows no links and opens no special "
        "files in its cache folder"
    )


def _opened(path: Path | str, flags: int, mode: int, dir_fd: int | None) -> int:
    try:
        return os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as error:
        refusal = _refusal(path, dir_fd)
        if refusal is not None:
            raise refusal from error
        raise


def open_file(
    path: Path | str,
    flags: int = os.O_RDONLY,
    mode: int = PRIVATE_FILE_MODE,
    *,
    dir_fd: int | None = None,
) -> int:
    """A descriptor of the regular file ``path`` (relative to ``dir_fd`` if given), opened
    without following a link or blocking; UnsafeEntry if it is anything else or another
    user's, OSError (FileNotFoundError, ...) as :func:`os.open` raises it otherwise."""
    fd = _opened(path, flags, mode, dir_fd)
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise UnsafeEntry(
                f"{path} is {kind_of(found.st_mode)}, not a regular file; ragls opens no "
                "special files in its cache folder"
            )
        user = _user()
        if user is not None and found.st_uid != user:
            raise UnsafeEntry(f"{path} belongs to user {found.st_uid}, not to this one ({user})")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(path: Path | str, limit: int, *, dir_fd: int | None = None) -> bytes:
    """The whole content of a small regular file (the pointer, a manifest, workspace.json);
    UnsafeEntry if it is not one or holds more than ``limit`` bytes."""
    fd = open_file(path, dir_fd=dir_fd)
    try:
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnsafeEntry(f"{path} holds more than the {limit} bytes it may")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _check_folder(path: Path, found: os.stat_result, *, tighten: bool) -> None:
    if not stat.S_ISDIR(found.st_mode):
        raise UnsafeEntry(f"{path} is {kind_of(found.st_mode)}, not a folder")
    user = _user()
    if user is None:  # pragma: no cover - Windows: no owners or modes to check
        return
    if found.st_uid != user:
        raise UnsafeEntry(
            f"{path} belongs to user {found.st_uid}, not to this one ({user}); ragls keeps "
            "its index only in folders of its own user"
        )
    mode = stat.S_IMODE(found.st_mode)
    if mode & _OTHERS_WRITE:
        raise UnsafeEntry(
            f"{path} may be written by other users (mode {mode:04o}); ragls keeps its index "
            f"only in a folder private to its user: chmod 700 {path} or choose another"
        )
    if mode & _OTHERS and tighten:
        os.chmod(path, PRIVATE_FOLDER_MODE)


def _make_folders(path: Path) -> None:
    """Create ``path`` and its missing parents, each ``0700``."""
    missing = []
    for folder in (path, *path.parents):
        if os.path.lexists(folder):
            break
        missing.append(folder)
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made by another process meanwhile
            folder.mkdir(mode=PRIVATE_FOLDER_MODE)


def private_root(path: Path, *, create: bool) -> None:
    """Check the cache root (following links to it: where it lives is the user's choice),
    creating it and its missing parents ``0700`` if ``create``; FileNotFoundError if it does
    not exist and may not be created, UnsafeEntry if it is not private to this user."""
    if create:
        _make_folders(path)
    _check_folder(path, os.stat(path), tighten=True)


def private_folder(path: Path, *, create: bool) -> None:
    """Check a folder ragls made under the cache root (a workspace's, ``team/``): a folder of
    this user, not a link, writable by nobody else; created ``0700`` if ``create``."""
    if create:
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_FOLDER_MODE)
    _check_folder(path, os.lstat(path), tighten=True)


def is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself (not a link to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def remove_folder(path: Path) -> None:
    """Remove the folder ``path`` and everything in it, never anything a link in it points
    to; a link in place of the folder is refused (UnsafeEntry)."""
    found = os.lstat(path)
    if not stat.S_ISDIR(found.st_mode):
        raise UnsafeEntry(f"{path} is {kind_of(found.st_mode)}, not a folder; it is not removed")
    shutil.rmtree(path)


class FolderHandle:
    """A checked folder, held open: its entries are opened, listed, renamed and removed
    relative to it, so a link put in place of the folder later is never followed. Where the
    platform has no descriptor-relative calls (Windows), paths are used."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        if _BY_DESCRIPTOR:
            flags = os.O_RDONLY | _DIRECTORY
            self.fd = _opened(path, flags, 0, None)
            try:
                _check_folder(path, os.fstat(self.fd), tighten=False)
            except BaseException:
                self.close()
                raise
        else:  # pragma: no cover - Windows
            _check_folder(path, os.lstat(path), tighten=False)

    def __enter__(self) -> FolderHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    def relative(self, name: str) -> str:
        """What names the entry ``name`` together with ``dir_fd=self.fd``."""
        return name if self.fd is not None else str(self.path / name)

    def read(self, name: str, limit: int) -> bytes:
        return read_file(self.relative(name), limit, dir_fd=self.fd)

    def open(self, name: str, flags: int = os.O_RDONLY, mode: int = PRIVATE_FILE_MODE) -> int:
        return open_file(self.relative(name), flags, mode, dir_fd=self.fd)

    def create(self, name: str) -> int:
        """A new file (FileExistsError if ``name`` exists, even as a link)."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        return os.open(self.relative(name), flags, PRIVATE_FILE_MODE, dir_fd=self.fd)

    def replace(self, source: str, target: str) -> None:
        os.replace(
            self.relative(source), self.relative(target), src_dir_fd=self.fd, dst_dir_fd=self.fd
        )

    def unlink(self, name: str) -> None:
        """Remove the entry ``name`` itself (a link is removed, never what it points to)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.relative(name), dir_fd=self.fd)

    def touch(self, name: str, seconds: float) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.utime(self.relative(name), (seconds, seconds), dir_fd=self.fd, follow_symlinks=False)

    def entries(self) -> Iterator[tuple[str, os.stat_result]]:
        """(name, lstat) of every entry."""
        with os.scandir(self.fd if self.fd is not None else self.path) as found:
            for entry in found:
                with contextlib.suppress(FileNotFoundError):
                    yield entry.name, entry.stat(follow_symlinks=False)

"""Reading a file beneath a root without following any link on the way (SPEC §12: nothing
outside the roots is read; docs/security.md, "What it reads").

Checking a path and then opening it by name leaves a window: a folder on the way can be
swapped for a link to somewhere else between the check and the open (MCP ``read_span`` once
returned a file outside its root in 543 of 29,412 calls that raced such a swap). Here the path
is opened one component at a time, each relative to the descriptor of the folder before it,
with ``O_NOFOLLOW``: a link at any component, whenever it appears, makes the open fail, and
the file read is the one found beneath the root's descriptor. The file must be regular (a FIFO
is neither waited on nor read) and is read to at most ``limit`` bytes.

Where the platform has no descriptor-relative ``open`` (Windows), the path is opened by name
after checking each component is no link: the check-then-open window remains there.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BY_DESCRIPTOR = os.open in os.supports_dir_fd


class Refused(Exception):
    """The path cannot be read beneath the root; the message says which component and why
    ("src is a symbolic link", "src/app.py is a FIFO, not a regular file")."""


class TooLarge(Refused):
    pass


def _what(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refusal(name: str, shown: str, folder: int | None, error: OSError) -> Exception:
    """Why opening ``name`` (``shown`` from the root) failed, in words when it is what it is."""
    with contextlib.suppress(OSError):
        found = os.lstat(name, dir_fd=folder)
        if not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
            return Refused(f"{shown} is {_what(found.st_mode)}")
        if stat.S_ISREG(found.st_mode) and error.errno == getattr(os, "ENOTDIR", None):
            return Refused(f"{shown} is a file, not a directory")
    return error


def _open_parts(root: Path, parts: list[str]) -> int:
    folder = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for index, name in enumerate(parts):
            last = index == len(parts) - 1
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_NONBLOCK if last else _DIRECTORY)
            try:
                opened = os.open(name, flags, dir_fd=folder)
            except FileNotFoundError:
                raise
            except OSError as error:
                raise _refusal(name, "/".join(parts[: index + 1]), folder, error) from None
            os.close(folder)
            folder = opened
        return folder
    except BaseException:
        os.close(folder)
        raise


def _open_by_name(root: Path, parts: list[str]) -> int:  # pragma: no cover - Windows
    for index in range(len(parts)):
        if (root.joinpath(*parts[: index + 1])).is_symlink():
            raise Refused(f"{'/'.join(parts[: index + 1])} is a symbolic link")
    return os.open(root.joinpath(*parts), os.O_RDONLY | _NOFOLLOW | _CLOEXEC)


def read_beneath(root: Path, relative: str, limit: int) -> bytes:
    """The bytes of the regular file ``relative`` (a clean POSIX path, no ``..``) beneath the
    folder ``root``. Refused naming the component that is a link or a special file, TooLarge
    over ``limit`` bytes, OSError (FileNotFoundError, ...) otherwise."""
    parts = relative.split("/")
    if not relative or any(part in ("", ".", "..") for part in parts):
        raise Refused(f"{relative!r} is not a clean relative path")
    descriptor = _open_parts(root, parts) if _BY_DESCRIPTOR else _open_by_name(root, parts)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise Refused(f"{relative} is {_what(mode)}")
        chunks, size = [], 0
        while block := os.read(descriptor, min(1 << 20, limit + 1 - size)):
            chunks.append(block)
            size += len(block)
            if size > limit:
                raise TooLarge(f"{relative} holds more than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)

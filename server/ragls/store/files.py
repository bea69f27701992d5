"""Durable writes and checked reads of a generation's files (the embedded store's format).

Arrays are written as their raw little-endian bytes (dtype and length are in the manifest) and
read back into a writable buffer without a copy; plain objects are written with :mod:`marshal`,
the interpreter's own serializer of plain values, which docs/storage.md measured fastest to
write and to read (against JSON and SQLite) for a corpus's texts and metadata. marshal's format
belongs to the Python version, so the manifest records it and a generation written by another
version is rebuilt, not read; and marshal is not meant for untrusted bytes, so every file's
SHA-256 is checked against the manifest before it is decoded (the manifest's own against the
pointer). Files are opened through :mod:`ragls.store.boundary`: never through a link, never a
FIFO or a device.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.store import boundary

# Array dtypes a generation may hold: little-endian numbers only (no objects, no pickles).
ARRAY_DTYPES = frozenset({"<f8", "<f4", "<i8", "<i4", "|b1", "|u1"})
CODEC = f"marshal{marshal.version}-py{sys.version_info[0]}.{sys.version_info[1]}"
_CHUNK = 1 << 24


class CorruptFile(Exception):
    """A file of a generation does not match its manifest entry (the message says how)."""


class MissingFile(CorruptFile):
    """A file the manifest names is not there."""


def sha256_of(data: bytes | bytearray | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def write_durably(path: Path, data: bytes | memoryview) -> None:
    """Write a new file and flush it to the disk (OSError on failure, e.g. ENOSPC)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, boundary.PRIVATE_FILE_MODE)
    try:
        view = memoryview(data).cast("B")
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_directory(path: Path) -> None:
    """Make the entries of ``path`` (new files, renames) durable."""
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def encode_array(array: npt.NDArray[Any]) -> tuple[memoryview, dict[str, Any]]:
    """The bytes to write and the manifest entry of a one-dimensional numeric array."""
    if array.ndim != 1:
        raise ValueError(f"only one-dimensional arrays are stored, got {array.ndim} dimensions")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    contiguous = np.ascontiguousarray(little)
    dtype = contiguous.dtype.str
    if dtype not in ARRAY_DTYPES:
        raise ValueError(f"arrays of dtype {dtype} are not stored")
    data = contiguous.data.cast("B")
    entry = {"kind": "array", "dtype": dtype, "length": len(contiguous), "bytes": data.nbytes}
    return data, entry | {"sha256": sha256_of(data)}


def encode_object(value: object) -> tuple[bytes, dict[str, Any]]:
    data = marshal.dumps(value)  # type: ignore[arg-type]
    return data, {"kind": "object", "bytes": len(data), "sha256": sha256_of(data)}


def read_checked(
    path: Path | str, entry: dict[str, Any], *, dir_fd: int | None = None
) -> bytearray:
    """The file's bytes (``path`` relative to ``dir_fd`` if given), after checking their size
    against ``entry`` before anything is allocated, and their checksum after reading."""
    name = Path(path).name
    size = entry.get("bytes")
    if not isinstance(size, int) or size < 0:
        raise CorruptFile(f"{name}: the manifest gives no size")
    try:
        fd = boundary.open_file(path, dir_fd=dir_fd)
    except FileNotFoundError:
        raise MissingFile(f"{name} is missing") from None
    except boundary.UnsafeEntry as error:
        raise CorruptFile(str(error)) from None
    with open(fd, "rb", buffering=0) as file:
        actual = os.fstat(fd).st_size
        if actual != size:
            raise CorruptFile(f"{name} has {actual} bytes, the manifest says {size}")
        data = bytearray(size)
        view, done = memoryview(data), 0
        while done < size:
            count = file.readinto(view[done:])
            if not count:
                raise CorruptFile(f"{name} ended early")
            done += count
    if sha256_of(data) != entry.get("sha256"):
        raise CorruptFile(f"{name} fails its checksum")
    return data


def check_bytes(data: bytearray, entry: dict[str, Any], name: str) -> bytearray:
    """``data`` if its size and checksum are the ones ``entry`` gives (a part read from a
    server-backed store), else CorruptFile."""
    if len(data) != entry.get("bytes"):
        raise CorruptFile(f"{name} has {len(data)} bytes, the manifest says {entry.get('bytes')}")
    if sha256_of(data) != entry.get("sha256"):
        raise CorruptFile(f"{name} fails its checksum")
    return data


def decode_parts(
    parts: dict[str, dict[str, Any]], read: Callable[[str, dict[str, Any]], bytearray]
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, object]]:
    """A manifest's parts decoded: ``read(name, entry)`` gives each part's checked bytes."""
    arrays: dict[str, npt.NDArray[Any]] = {}
    objects: dict[str, object] = {}
    for part, entry in parts.items():
        raw = read(part, entry)
        if entry.get("kind") == "array":
            arrays[part] = decode_array(raw, entry, part)
        elif entry.get("kind") == "object":
            objects[part] = decode_object(raw, part)
        else:
            raise CorruptFile(f"{part} is of unknown kind {entry.get('kind')!r}")
    return arrays, objects


def decode_array(data: bytearray, entry: dict[str, Any], name: str) -> npt.NDArray[Any]:
    dtype = entry.get("dtype")
    if dtype not in ARRAY_DTYPES:
        raise CorruptFile(f"{name}: dtype {dtype!r} is not a stored array type")
    array = np.frombuffer(data, dtype=np.dtype(dtype))
    if len(array) != entry.get("length"):
        raise CorruptFile(f"{name}: {len(array)} values, the manifest says {entry.get('length')}")
    return array.astype(array.dtype.newbyteorder("="), copy=False)


def decode_object(data: bytearray, name: str) -> object:
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError) as error:
        raise CorruptFile(f"{name} cannot be decoded: {error}") from None

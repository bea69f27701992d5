"""Durable writes and checked reads of a generation's files (the embedded store's format).

Arrays are written as their raw little-endian bytes (dtype and length are in the manifest) and
read back into a writable buffer without a copy; plain objects are written with
:mod:`ragls.store.codec` (JSON with string tables), whose decoder allocates no more than a
constant factor of the bytes it is given, so bytes from a cache folder or a team database that
someone else wrote cannot ask for more memory than they take. Every part's size is checked
against its manifest entry before anything is allocated for it and its SHA-256 before it is
decoded (the manifest's own against the pointer); those catch accidents (a torn write, a
flipped bit), the bounded decoder what a writer of the cache or the database does on purpose.
Files are opened through :mod:`ragls.store.boundary`: never through a link, never a FIFO or a
device.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.store import boundary, codec

# Array dtypes a generation may hold: little-endian numbers only (no objects, no pickles).
ARRAY_DTYPES = frozenset({"<f8", "<f4", "<i8", "<i4", "<u2", "|b1", "|u1"})
CODEC = codec.NAME
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
    data = codec.encode(value)
    return data, {"kind": "object", "bytes": len(data), "sha256": sha256_of(data)}


def read_checked(
    path: Path | str, entry: dict[str, Any], *, dir_fd: int | None = None
) -> bytearray:
    """The file's bytes (``path`` relative to ``dir_fd`` if given), after checking their size
    against ``entry`` before anything is allocated, and their checksum after reading."""
    data, fd = read_checked_open(path, entry, dir_fd=dir_fd)
    os.close(fd)
    return data


def read_checked_open(
    path: Path | str, entry: dict[str, Any], *, dir_fd: int | None = None
) -> tuple[bytearray, int]:
    """:func:`read_checked`'s bytes and the descriptor they were read through, left open for
    the caller (who closes it): what is read through it later is the file that was checked."""
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
    try:
        with open(fd, "rb", buffering=0, closefd=False) as file:
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
    except BaseException:
        os.close(fd)
        raise
    return data, fd


def check_bytes(data: bytearray, entry: dict[str, Any], name: str) -> bytearray:
    """``data`` if its size and checksum are the ones ``entry`` gives (a part read from a
    server-backed store), else CorruptFile."""
    if len(data) != entry.get("bytes"):
        raise CorruptFile(f"{name} has {len(data)} bytes, the manifest says {entry.get('bytes')}")
    if sha256_of(data) != entry.get("sha256"):
        raise CorruptFile(f"{name} fails its checksum")
    return data


def decode_array(data: bytearray, entry: dict[str, Any], name: str) -> npt.NDArray[Any]:
    dtype = entry.get("dtype")
    if dtype not in ARRAY_DTYPES:
        raise CorruptFile(f"{name}: dtype {dtype!r} is not a stored array type")
    if len(data) % np.dtype(dtype).itemsize:
        raise CorruptFile(f"{name}: {len(data)} bytes are not a whole number of {dtype}")
    array = np.frombuffer(data, dtype=np.dtype(dtype))
    if len(array) != entry.get("length"):
        raise CorruptFile(f"{name}: {len(array)} values, the manifest says {entry.get('length')}")
    return array.astype(array.dtype.newbyteorder("="), copy=False)


def decode_object(data: bytearray, name: str, record_tables: bool = False) -> object:
    try:
        return codec.decode(data, record_tables)
    except codec.DecodeError as error:
        raise CorruptFile(f"{name} cannot be decoded: {error}") from None

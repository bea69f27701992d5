"""A generation's chunk texts read where they are stored, not copied (issue 26, items 3 and 6).

A stored generation keeps its documents' texts in one part (``documents.text``): their UTF-8
joined by NUL, a string table of :mod:`ragls.store.codec`. Decoding it made a Python string of
every text, which the service then encoded again and wrote to its text spill
(:mod:`ragls.core.spill`) so as not to hold them: at 1x the standard library, 37 MB decoded,
re-encoded and written, about a third of a restart's own work. :class:`StoredTexts` instead
keeps the part file open and says where each text's bytes are in it; the service makes
documents that read their text from there when asked (``pread``, as from the spill).

Decisions written down here:

* The part is read whole and checked (size, SHA-256, the table's layout, every string's UTF-8)
  exactly as a decoded one is, through the same descriptor that is then kept: what is read
  later is what was checked. The bytes are dropped after the load (:meth:`StoredTexts.release`);
  the descriptor stays open as long as a document reads from it.
* A generation replaced by a newer one may be removed from the cache folder while documents
  still read from it: the open descriptor keeps the file's bytes (POSIX), and the disk space
  is freed with the last of them, as the spill's segments are. So the disk holds at most what
  it held before (the stored texts and the spill's copy), usually less.
* A part that is not one string table (a text holding a NUL is written inside the skeleton)
  is not read this way: the store decodes it as before.
* If the file changes under the process anyway (someone writes into the cache folder), a
  text read back is decoded with replacement characters rather than raising: a search never
  fails for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from ragls.store import codec

IntArray = npt.NDArray[np.int64]
_ERRORS = "surrogatepass"  # as the codec writes them: file names may carry lone surrogates
_STEP = 1 << 20  # UTF-8 is checked a segment at a time, cut at a separator


class StoredTexts:
    """The strings of a stored string table, read from the part file (see the module doc).
    A sequence of ``str``: ``texts[i]`` decodes one, from the bytes while the load holds them
    and from the file after :meth:`release`."""

    __slots__ = ("__weakref__", "_data", "_fd", "ends", "starts")

    def __init__(self, fd: int, data: bytearray, starts: IntArray, ends: IntArray) -> None:
        self._fd = fd
        self._data: bytearray | None = data
        self.starts = starts  # where each string's bytes start in the file
        self.ends = ends

    @classmethod
    def of(cls, fd: int, data: bytearray) -> StoredTexts | None:
        """The texts of a part whose checked bytes are ``data``, read through ``fd`` (which it
        then owns); None, leaving ``fd`` to the caller, if the part is not one string table.
        DecodeError if it claims to be one and is not."""
        spans = _table_spans(data)
        if spans is None:
            return None
        return cls(fd, data, *spans)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, number: int) -> str:
        start, end = int(self.starts[number]), int(self.ends[number])
        if self._data is not None:
            return str(memoryview(self._data)[start:end], "utf-8", _ERRORS)
        return self.text(start, end)

    def __iter__(self) -> Iterator[str]:
        return (self[number] for number in range(len(self)))

    def holding(self, needle: str) -> list[int]:
        """The numbers of the strings that contain ``needle`` (no NUL in it), found in the
        bytes in one pass (only while the load holds them: [] after :meth:`release`)."""
        data = self._data
        if data is None or not needle or "\x00" in needle or not len(self):
            return []
        wanted = needle.encode("utf-8", _ERRORS)
        found: list[int] = []
        at = data.find(wanted, int(self.starts[0]))
        while at != -1:
            number = int(np.searchsorted(self.starts, at, side="right")) - 1
            found.append(number)
            at = data.find(wanted, int(self.ends[number]))
        return found

    def read(self, start: int, end: int) -> bytes:
        """The file's bytes from ``start`` to ``end`` (fewer if it was cut short since)."""
        data = os.pread(self._fd, end - start, start)
        while len(data) < end - start:  # a short read (signals): read on, unless at the end
            more = os.pread(self._fd, end - start - len(data), start + len(data))
            if not more:
                break
            data += more
        return data

    def text(self, start: int, end: int) -> str:
        """The string whose bytes are ``start`` to ``end`` of the file, as a document reads
        its text back."""
        return _decoded(self.read(start, end))

    def release(self) -> None:
        """Drop the bytes the load read; texts are read from the file from now on."""
        self._data = None

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown, globals may be gone
            self.close()


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8", _ERRORS)
    except UnicodeDecodeError:  # the file was written to since it was checked
        return data.decode("utf-8", "replace")


def _table_spans(data: bytearray) -> tuple[IntArray, IntArray] | None:
    """Where each string of a part that is exactly one string table starts and ends in
    ``data``; None for any other part. Checks what :func:`ragls.store.codec.decode` checks."""
    table = codec.string_table(data)
    if table is None:
        return None
    count, start, end = table
    separators = _separators(data, start, end)
    if count == 0 and start == end:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if count != len(separators) + 1:
        raise codec.DecodeError(f"a table claims {count} strings and holds {len(separators) + 1}")
    _check_utf8(memoryview(data), start, end, separators)
    starts = np.concatenate(([start], separators + 1)).astype(np.int64)
    ends = np.concatenate((separators, [end])).astype(np.int64)
    return starts, ends


def _separators(data: bytearray, start: int, end: int) -> IntArray:
    """Where the NUL bytes between ``start`` and ``end`` are, found :data:`_STEP` * 16 bytes
    at a time (a comparison of the whole table at once would allocate its length again)."""
    step = _STEP * 16
    found = [
        np.flatnonzero(np.frombuffer(data, np.uint8, min(step, end - at), at) == 0) + at
        for at in range(start, end, step)
    ]
    return np.concatenate(found).astype(np.int64) if found else np.zeros(0, np.int64)


def _check_utf8(view: memoryview, start: int, end: int, separators: IntArray) -> None:
    """DecodeError unless the bytes are UTF-8 (lone surrogates allowed), checked a segment of
    about :data:`_STEP` bytes at a time, each cut at a separator (never inside a character)."""
    cuts = [start]
    if len(separators):
        wanted = np.arange(start + _STEP, end, _STEP)
        at = np.searchsorted(separators, wanted)
        cuts += sorted(set(separators[at[at < len(separators)]].tolist()))
    cuts.append(end)
    try:
        for first, last in pairwise(cuts):
            str(view[first:last], "utf-8", _ERRORS)
    except UnicodeDecodeError as error:
        raise codec.DecodeError(f"a table holds bytes that are not UTF-8: {error}") from None

"""Chunk texts kept in a file the kernel caches instead of the process's heap (issue 26, item 3).

An index of the standard library holds 37 MB of chunk text, the largest single part of a
session's memory; a daemon that runs all day beside an editor should not keep it as Python
strings. :class:`TextSpill` writes each indexed chunk's text once (UTF-8) into an unlinked
temporary file and hands back a :class:`SpilledDocument`, which keeps only where its text is
and reads it back (``pread``, about a microsecond from the page cache) when ``content`` is
asked for: a search reads the texts of its answers and of the candidates the ranking layer
looks into, tens per query. The bytes live in the kernel's page cache, which it can drop and
read again when it needs the room; they are not mapped into the process (a memory map would
put every page an index run reads back into the process's resident set).

Decisions written down here:

* The file is a series of *segments* (up to :data:`SEGMENT_BYTES` each). A
  document holds its segment; a segment is closed (and its file, unlinked from the start,
  freed) when no document holds it any more. Texts are never rewritten in place: a changed
  file's new chunks go to the current segment, and the old ones' bytes are freed with the
  last document of their segment (between runs, at most the segments some live chunk still
  uses are kept: the disk holds at most a few times the live text).
* The folder is the cache root the stored index uses (private to the user; the service
  configures it: :func:`configure`). The texts are the index's own (secrets already masked),
  as a stored generation holds them on disk anyway. With no folder configured, or when the
  folder cannot be written (full, read-only), documents stay as they are, in memory: nothing
  is lost, and a warning says so once.
* The folder failing (removed while the process runs), segments go to the system's temporary
  folder; where neither can be written, or on a system without ``pwrite``, texts stay in memory.
* Texts shorter than :data:`MIN_SPILL_CHARS` stay in memory: their pointer would cost about as
  much as the string.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import IO, Protocol

from ragls.core.documents import Document
from ragls.core.metadata import held

log = logging.getLogger(__name__)

SEGMENT_BYTES = 256 << 20
_PWRITEV = hasattr(os, "pwritev")


def _vector_limit() -> int:
    """How many buffers one ``pwritev`` takes here (IOV_MAX; 16, the least POSIX allows)."""
    try:
        return max(16, min(os.sysconf("SC_IOV_MAX"), 1024))
    except (AttributeError, ValueError, OSError):
        return 16


_VECTOR = _vector_limit()
MIN_SPILL_CHARS = 64
_ERRORS = "surrogatepass"  # file names and texts may carry lone surrogates


class _Segment:
    """One unlinked file of at most ``capacity`` bytes, appended to by ``write``."""

    __slots__ = ("_fd", "_file", "capacity", "size")

    def __init__(self, folder: Path | None, capacity: int) -> None:
        # Open for the segment's life (closed with it): no context manager fits.
        self._file: IO[bytes] = tempfile.TemporaryFile(  # noqa: SIM115
            prefix="ragls-texts-", dir=folder
        )
        self._fd = self._file.fileno()
        self.capacity = capacity
        self.size = 0

    def read(self, start: int, end: int) -> bytes:
        data = os.pread(self._fd, end - start, start)
        while len(data) < end - start:  # a short read (signals): read on
            data += os.pread(self._fd, end - start - len(data), start + len(data))
        return data

    def text(self, start: int, end: int) -> str:
        return self.read(start, end).decode("utf-8", _ERRORS)

    def write(self, parts: list[bytes]) -> int:
        """Append ``parts`` one after the other; the offset of the first. The caller checked
        they fit. Written from the parts themselves (``pwritev``, :data:`_VECTOR` at a time)
        where the system has it: joining them first copied 37 MB for a 1x restore."""
        offset = position = self.size
        step = _VECTOR if _PWRITEV else max(len(parts), 1)
        for first in range(0, len(parts), step):
            vector = parts[first : first + step]
            size = sum(len(part) for part in vector)
            written = os.pwritev(self._fd, vector, position) if _PWRITEV else 0
            if written < size:  # a short write (or no pwritev): the rest as one buffer
                rest = b"".join(vector)[written:]
                while rest:
                    done = os.pwrite(self._fd, rest, position + size - len(rest))
                    rest = rest[done:]
            position += size
        self.size = position
        return offset

    def close(self) -> None:
        self._file.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown, globals may be gone
            self.close()


class TextSource(Protocol):
    """Where a spilled document's text is: a segment of the spill, or a stored generation's
    texts part (:class:`ragls.store.stored_texts.StoredTexts`)."""

    def text(self, start: int, end: int) -> str: ...


class SpilledDocument(Document):
    """A :class:`Document` whose text is read from its segment when asked for (see the module
    doc); equal to, and pickled as, the plain document with the same text."""

    __slots__ = ("_segment", "_span")
    _segment: TextSource
    _span: int | tuple[int, int]  # see _packed

    @property
    def content(self) -> str:
        span = self._span
        if type(span) is int:
            start = span >> _LENGTH_BITS
            return self._segment.text(start, start + (span & _LENGTH_MASK))
        return self._segment.text(*span)  # type: ignore[misc]


class TextSpill:
    """Where chunk texts go (see the module doc). Thread-safe."""

    def __init__(self, folder: Path, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.folder = folder
        self.segment_bytes = segment_bytes
        self._lock = threading.Lock()
        self._segment: _Segment | None = None
        self._failed = False
        self.spilled_bytes = 0  # written in all, for status and tests

    def hold(self, documents: Iterable[Document]) -> tuple[Document, ...]:
        """``documents`` with their texts in the spill (the short ones, added documents that
        are already spilled, and all of them once the folder failed, as they were)."""
        given = tuple(documents)
        if self._failed:
            return given
        chosen = [
            number
            for number, document in enumerate(given)
            if type(document) is Document and len(document.content) >= MIN_SPILL_CHARS
        ]
        if not chosen:
            return given
        encoded = [given[number].content.encode("utf-8", _ERRORS) for number in chosen]
        kept = list(given)
        with self._lock:
            try:
                placed = self._write(encoded)
            except OSError as error:
                self._failed = True
                log.warning(
                    "chunk texts stay in memory: cannot write them to %s (%s)", self.folder, error
                )
                return given
        for number, (segment, start, end) in zip(chosen, placed, strict=True):
            document = given[number]
            kept[number] = _spilled(document.id, document.metadata, segment, start, end)
        return tuple(kept)

    def _write(self, encoded: list[bytes]) -> list[tuple[_Segment, int, int]]:
        """Each text's (segment, start, end), written a segment's worth at a time (lock held).
        Where each segment's batch ends is a binary search in the running sums of the texts'
        lengths (a loop over the texts took 130 ms of a 55,000-text restore)."""
        placed: list[tuple[_Segment, int, int]] = []
        lengths = [len(data) for data in encoded]
        ends = list(accumulate(lengths))  # where each text ends, counted from the first
        position, consumed = 0, 0  # the first text not written, and the bytes before it
        while position < len(encoded):
            segment = self._segment
            room = 0 if segment is None else segment.capacity - segment.size
            stop = bisect_right(ends, consumed + room, position)
            if stop == position:
                self._segment = self._new_segment(max(self.segment_bytes, lengths[position]))
                continue
            assert segment is not None
            base = segment.write(encoded[position:stop]) - consumed
            placed += [
                (segment, base + end - length, base + end)
                for end, length in zip(ends[position:stop], lengths[position:stop], strict=True)
            ]
            self.spilled_bytes += ends[stop - 1] - consumed
            position, consumed = stop, ends[stop - 1]
        return placed

    def _new_segment(self, capacity: int) -> _Segment:
        """A segment in the folder, or in the system's temporary folder if the folder went
        away (OSError if neither can be written)."""
        try:
            return _Segment(self.folder, capacity)
        except OSError as error:
            log.debug("no text segment in %s (%s); trying the temporary folder", self.folder, error)
            return _Segment(None, capacity)


def kept_in(
    source: TextSource,
    ids: Sequence[str],
    metadata: Sequence[object],
    spans: tuple[Sequence[int], Sequence[int]],
    short: Callable[[int], str],
) -> list[Document]:
    """Documents read back from a store whose texts stay where ``source`` keeps them: the
    n-th's bytes are ``spans[0][n]`` to ``spans[1][n]`` of it. Texts shorter than
    :data:`MIN_SPILL_CHARS` bytes are read now (``short(n)``) and kept in memory, as
    :meth:`TextSpill.hold` keeps them. As :meth:`Document.restored`, nothing is validated
    again; TypeError if a part is not of its type."""
    documents: list[Document] = []
    append = documents.append
    for number, (id, data, start, end) in enumerate(zip(ids, metadata, *spans, strict=True)):
        if end - start < MIN_SPILL_CHARS:
            append(Document.restored(id, short(number), data))
            continue
        if not (isinstance(id, str) and id):
            raise TypeError("a stored document's id is not a string")
        append(_spilled(id, held(data), source, start, end))
    return documents


def _spilled(
    id: str, metadata: Mapping[str, str], source: TextSource, start: int, end: int
) -> SpilledDocument:
    spilled = object.__new__(SpilledDocument)
    set_attribute = object.__setattr__
    set_attribute(spilled, "id", id)
    set_attribute(spilled, "metadata", metadata)
    set_attribute(spilled, "_segment", source)
    set_attribute(spilled, "_span", _packed(start, end))
    return spilled


# A text's place as one int, ``start << _LENGTH_BITS | length``: one int object a document
# rather than two (32 bytes each past 256: 1.7 MB at 1x the standard library, 28 MB at 16x).
# Up to 2^60 it is a 32-byte int; a place past that (a start beyond 16 GiB, a text of 64 MiB
# or more) is kept as the pair.
_LENGTH_BITS = 26
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1
_PACKED_LIMIT = 1 << 60


def _packed(start: int, end: int) -> int | tuple[int, int]:
    length = end - start
    if 0 <= length <= _LENGTH_MASK and start >= 0 and (start << _LENGTH_BITS) < _PACKED_LIMIT:
        return start << _LENGTH_BITS | length
    return (start, end)


_configured: TextSpill | None = None
_configure_lock = threading.Lock()


def configure(folder: Path | None) -> TextSpill | None:
    """Use ``folder`` for this process's chunk texts from now on (None: keep them in memory).
    Documents already spilled keep their segments. Returns the spill in use."""
    global _configured
    if not hasattr(os, "pwrite"):  # not a POSIX system: texts stay in memory
        folder = None
    with _configure_lock:
        _configured = None if folder is None else TextSpill(folder)
        return _configured


def configure_once(folder: Path | None) -> TextSpill | None:
    """:func:`configure` unless a spill is already in use (the first session's folder wins)."""
    with _configure_lock:
        if _configured is not None:
            return _configured
    return configure(folder)


def current() -> TextSpill | None:
    return _configured


def hold(documents: Iterable[Document]) -> tuple[Document, ...]:
    """``documents`` through the process's spill, or as they are when there is none."""
    spill = _configured
    return tuple(documents) if spill is None else spill.hold(documents)

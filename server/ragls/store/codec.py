"""How a generation's plain objects are written and read: JSON with string tables, decoded
within bounds (docs/storage.md, "The format"; docs/security.md, the trust model).

A part's bytes are whoever wrote the cache folder's or the team database's, so decoding them
must not let a few bytes ask for gigabytes (marshal, which this replaces, allocates a tuple of
the length a five-byte header declares before it reads one element of it). Here every
allocation is bounded by bytes that are actually there:

* the *skeleton* is JSON (``{"value": ..., "tables": [...]}``), which builds nothing it has not
  read: memory stays within a constant factor of its length;
* long lists of strings (a corpus's texts and ids, a stream's terms: most of a generation's
  bytes, and slow in JSON, which escapes every newline) are *tables*: their strings' UTF-8
  joined by NUL (a list holding a NUL stays in the skeleton), with the count they must split
  into. Splitting allocates one string per separator actually present;
* long lists of string-to-string dictionaries (a corpus's metadata, where every chunk repeats
  its keys, its language and its file's path) are *record tables*: a table of the distinct
  strings, then every key and value as its number in that table (``u32``: a count is refused
  unless its numbers fit in the bytes that remain, a number unless the table has it), and in
  the skeleton each record's number of pairs. A repeated string comes back as one object
  (keys interned), as the corpus held it.

Each table takes the place of the ``null`` its path names in the skeleton: the value itself
(``[]``) or a value of a top-level dictionary (``[key]``). Layout of a part: ``u64`` skeleton
length, the skeleton's UTF-8, then each table in the order the skeleton lists them (``u64``
count, ``u64`` length, the joined strings; for a record table then ``u64`` count and the
numbers); nothing may follow. Any deviation is a :class:`DecodeError` naming what does not fit.
Tuples come back as lists (a snapshot's readers unpack them); dictionary keys must be strings.
"""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

import numpy as np
import numpy.typing as npt

NAME = "json-tables-1"
MIN_TABLE = 16  # shorter lists stay in the skeleton
_LENGTH = struct.Struct("<Q")
_NUMBER = np.dtype("<u4")
_SURROGATES = "surrogatepass"  # file names that are not UTF-8 carry lone surrogates
_SEPARATOR = b"\x00"
# A table is decoded a segment at a time: one character outside the BMP would otherwise make
# the whole table one string of four bytes a character while it is split.
_SEGMENT = 1 << 20
_BATCH = 1024  # strings joined at a time when a table is written


class DecodeError(ValueError):
    """A part's bytes are not a well-formed object part (the message says where)."""


# -- writing -----------------------------------------------------------------------------------


def _strings(value: object) -> list[str] | None:
    if not isinstance(value, list) or len(value) < MIN_TABLE:
        return None
    return value if all(type(item) is str for item in value) else None


def _records(value: object) -> tuple[list[int], list[str], list[int]] | None:
    """(pairs per record, the distinct strings, every key's and value's number in turn) if
    ``value`` is written as a record table."""
    if not isinstance(value, list) or len(value) < MIN_TABLE:
        return None
    if not all(type(record) is dict for record in value):
        return None
    flat = list(chain.from_iterable(chain.from_iterable(map(dict.items, value))))
    if not all(type(text) is str for text in flat):
        return None
    distinct = list(dict.fromkeys(flat))
    numbers = dict(zip(distinct, range(len(distinct)), strict=True))
    return list(map(len, value)), distinct, list(map(numbers.__getitem__, flat))


def _joined(strings: list[str]) -> bytes | None:
    """The strings' UTF-8 joined by NUL; None if one of them holds a NUL. Joined a batch at a
    time, for the reason a table is read a segment at a time."""
    batches = [
        "\x00".join(strings[start : start + _BATCH]).encode("utf-8", _SURROGATES)
        for start in range(0, len(strings), _BATCH)
    ]
    joined = _SEPARATOR.join(batches)
    return joined if joined.count(_SEPARATOR) == max(0, len(strings) - 1) else None


def _table(value: object) -> tuple[dict[str, Any], list[bytes]] | None:
    """(its description in the skeleton, its bytes) if ``value`` is written as a table."""
    strings = _strings(value)
    if strings is not None:
        joined = _joined(strings)
        if joined is None:
            return None
        return {"kind": "strings"}, [_LENGTH.pack(len(strings)), _LENGTH.pack(len(joined)), joined]
    records = _records(value)
    if records is None:
        return None
    sizes, distinct, numbers = records
    joined = _joined(distinct)
    if joined is None:
        return None
    return {"kind": "records", "sizes": sizes}, [
        _LENGTH.pack(len(distinct)),
        _LENGTH.pack(len(joined)),
        joined,
        _LENGTH.pack(len(numbers)),
        np.asarray(numbers, dtype=_NUMBER).tobytes(),
    ]


def encode(value: object) -> bytes:
    """The bytes of a plain value (str, int, float, bool, None, list, tuple, dict with str
    keys), its long lists of strings and of string dictionaries as tables."""
    skeleton: Any = value
    places: list[tuple[list[str], object]] = [([], value)]
    if isinstance(value, dict):
        skeleton = dict(value)
        places = [([key], item) for key, item in value.items()]
    described: list[dict[str, Any]] = []
    tables: list[bytes] = []
    for path, item in places:
        found = _table(item)
        if found is None:
            continue
        described.append({"path": path, **found[0]})
        tables += found[1]
        if path:
            skeleton[path[0]] = None
        else:
            skeleton = None
    head = json.dumps(
        {"value": skeleton, "tables": described}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8", _SURROGATES)
    return b"".join([_LENGTH.pack(len(head)), head, *tables])


# -- reading -----------------------------------------------------------------------------------


class _Reader:
    """A part's bytes, read front to back with every length checked before it is used."""

    def __init__(self, data: bytes | bytearray) -> None:
        self.data = data
        self.view = memoryview(data)
        self.position = 0

    @property
    def left(self) -> int:
        return len(self.view) - self.position

    def length(self, what: str) -> int:
        if self.left < _LENGTH.size:
            raise DecodeError(f"the part ends before {what}")
        value = int(_LENGTH.unpack_from(self.view, self.position)[0])
        self.position += _LENGTH.size
        return value

    def sized(self, what: str) -> tuple[int, int]:
        """(start, end) of the next ``length(what)`` bytes, which must be there."""
        size = self.length(what)
        if size > self.left:
            raise DecodeError(f"{what} claims {size} bytes, {self.left} remain")
        start = self.position
        self.position += size
        return start, self.position

    def strings(self) -> list[str]:
        count = self.length("a table's count")
        start, end = self.sized("a table")
        found: list[str] = []
        try:
            while count:
                far = start + _SEGMENT
                cut = self.data.find(_SEPARATOR, far, end) if far < end else -1
                stop = end if cut < 0 else cut
                found += str(self.view[start:stop], "utf-8", _SURROGATES).split("\x00")
                if cut < 0:
                    break
                start = cut + 1
        except UnicodeDecodeError as error:
            raise DecodeError(f"a table holds bytes that are not UTF-8: {error}") from None
        if len(found) != count or (not count and end > start):
            raise DecodeError(f"a table claims {count} strings and holds {len(found)}")
        return found

    def numbers(self, below: int) -> npt.NDArray[np.uint32]:
        count = self.length("a record table's count")
        if count > self.left // _NUMBER.itemsize:
            raise DecodeError(f"a record table claims {count} numbers, {self.left} bytes remain")
        found = np.frombuffer(self.view, dtype=_NUMBER, count=count, offset=self.position)
        self.position += count * _NUMBER.itemsize
        if count and int(found.max()) >= below:
            raise DecodeError(f"a record table names string {int(found.max())} of {below}")
        return found


@dataclass(frozen=True, slots=True)
class RecordTable:
    """A record table as it is written: its distinct strings (short ones interned), every
    record's keys and values as numbers in that list (key, value, key, value...), and each
    record's number of pairs. :meth:`dicts` gives the records (what :func:`decode` gives
    unless asked for the table itself: a reader that holds records in another form, such as
    the service's compact metadata, builds it from the numbers without a dict a record)."""

    strings: list[str]
    numbers: npt.NDArray[np.uint32]
    sizes: list[int]

    def dicts(self) -> list[dict[str, str]]:
        # Built by C loops (map, zip, islice): a corpus holds millions of pairs.
        every = list(map(self.strings.__getitem__, self.numbers.tolist()))
        pairs = zip(every[0::2], every[1::2], strict=True)
        return [dict(islice(pairs, size)) for size in self.sizes]


def decode(data: bytes | bytearray, record_tables: bool = False) -> object:
    """The value :func:`encode` wrote; DecodeError if ``data`` is anything else. Allocates at
    most a constant factor of ``len(data)``. With ``record_tables``, a record table comes
    back as a :class:`RecordTable` rather than a list of dicts."""
    reader = _Reader(data)
    start, end = reader.sized("the skeleton")
    try:
        head = json.loads(str(reader.view[start:end], "utf-8", _SURROGATES))
    except (ValueError, RecursionError) as error:
        raise DecodeError(f"the skeleton is not JSON: {error}") from None
    if not isinstance(head, dict) or set(head) != {"value", "tables"}:
        raise DecodeError("the skeleton is not an object of 'value' and 'tables'")
    if not isinstance(head["tables"], list):
        raise DecodeError("the skeleton's tables are not a list")
    value = head["value"]
    for described in head["tables"]:
        if not isinstance(described, dict):
            raise DecodeError("a table's description is not an object")
        table = _table_value(described, reader)
        if isinstance(table, RecordTable) and not record_tables:
            table = table.dicts()
        value = _placed(value, described.get("path"), table)
    if reader.left:
        raise DecodeError(f"{reader.left} bytes follow the last table")
    return value


_ONE_STRING_TABLE = {"value": None, "tables": [{"path": [], "kind": "strings"}]}


def string_table(data: bytes | bytearray) -> tuple[int, int, int] | None:
    """(count, start, end) of the strings of a part that is exactly one string table (a list of
    strings :func:`encode` wrote as one, which :mod:`ragls.store.stored_texts` reads where it
    is); None for any other part, which :func:`decode` reads. DecodeError if the table's
    count and length do not fit the bytes (its strings are the caller's to check)."""
    reader = _Reader(data)
    try:
        start, end = reader.sized("the skeleton")
        head = json.loads(str(reader.view[start:end], "utf-8", _SURROGATES))
    except (ValueError, RecursionError):  # DecodeError included: decode says what is wrong
        return None
    if head != _ONE_STRING_TABLE:
        return None
    count = reader.length("a table's count")
    start, end = reader.sized("a table")
    if reader.left:
        raise DecodeError(f"{reader.left} bytes follow the last table")
    return count, start, end


def _table_value(described: dict[str, Any], reader: _Reader) -> list[Any] | RecordTable:
    kind = described.get("kind")
    if kind == "strings":
        return reader.strings()
    if kind != "records":
        raise DecodeError(f"a table is of unknown kind {kind!r}")
    distinct = reader.strings()
    numbers = reader.numbers(len(distinct))
    sizes = described.get("sizes")
    if (
        not isinstance(sizes, list)
        or not all(type(size) is int and size >= 0 for size in sizes)
        or 2 * sum(sizes) != len(numbers)
    ):
        raise DecodeError("a record table's sizes do not add up to its numbers")
    strings = [sys.intern(text) if len(text) <= 64 else text for text in distinct]
    return RecordTable(strings, numbers, sizes)


def _placed(value: object, path: object, table: list[Any] | RecordTable) -> object:
    """``value`` with ``table`` where ``path`` points (at a null)."""
    if path == []:
        if value is not None:
            raise DecodeError("a table replaces a value that is not null")
        return table
    if not (isinstance(path, list) and len(path) == 1 and isinstance(path[0], str)):
        raise DecodeError(f"a table's path {path!r} is not [] or [key]")
    if not isinstance(value, dict) or path[0] not in value or value[path[0]] is not None:
        raise DecodeError(f"a table's path {path!r} names no null of the skeleton")
    value[path[0]] = table
    return value


def plain(value: Any) -> Any:
    """``value`` as :func:`decode` gives it back (tuples become lists): what a test compares."""
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value

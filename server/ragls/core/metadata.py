"""A document's metadata, held compactly (the speed issue's memory goal).

Every chunk carries a few metadata strings (``file``, ``format``, ``language``, ``start_line``,
``end_line``, and ``symbol`` and ``kind`` for code), and an index holds hundreds of thousands
of chunks. As a dict behind a read-only view, each chunk's metadata took about 320 bytes (a
hash table of eight entries and the view); the values themselves are interned and shared. Here
a chunk's metadata is its values in a tuple, and a *layout* (the keys, in order, and each key's
position) shared by every mapping with the same keys. The values are the slots of one object
of a class made for the layout (a subclass of :class:`Metadata`), not a tuple beside it: 88
bytes for seven values, where an object and its tuple took 144 (at 16x the standard library,
877,000 chunks: 49 MB less). The mapping is read-only, compares equal to a dict with the same
items, and pickles as a plain dict (so stored generations and worker messages are as before).

Layouts are few in practice (the chunker's, a Markdown section's, an added document's); past
:data:`MAX_LAYOUTS` distinct ones (an API client adding documents with ever new keys), a
mapping falls back to a read-only dict view.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import attrgetter
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_LAYOUTS = 512


class Layout:
    """The keys of some metadata mappings, in order, how to read each one's value, and the
    class of the mappings that hold their values (``make`` builds one from the values in key
    order)."""

    __slots__ = ("getters", "keys", "make", "read")

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        slots = tuple(f"v{position}" for position in range(len(keys)))
        held = type(
            "Metadata", (Metadata,), {"__slots__": slots, "_layout": self, "__module__": __name__}
        )
        self.getters = {key: attrgetter(slot) for key, slot in zip(keys, slots, strict=True)}
        if len(slots) > 1:
            self.read: Callable[[Metadata], tuple[str, ...]] = attrgetter(*slots)
        elif slots:
            single = attrgetter(slots[0])
            self.read = lambda mapping: (single(mapping),)
        else:
            self.read = lambda mapping: ()
        # One assignment of every slot from the values (a tuple unpacked into attributes): a
        # restart builds 55,000 of these at 1x. Seven values: 180 ns a mapping, where a loop
        # over the slots' descriptors took 880 ns and an object with a tuple 300 ns.
        assign = "".join(f"made.{slot}, " for slot in slots) + "= values" if slots else "pass"
        source = f"def make(values):\n    made = new(held)\n    {assign}\n    return made\n"
        namespace: dict[str, Any] = {"new": object.__new__, "held": held}
        exec(compile(source, "<metadata layout>", "exec"), namespace)
        self.make: Callable[[Sequence[str]], Metadata] = namespace["make"]


class Metadata(Mapping[str, str]):
    """A read-only mapping of strings to strings: its layout's keys, each with the value in
    the slot of the same position (made by :func:`compact`)."""

    __slots__ = ()
    _layout: Layout

    @property
    def _values(self) -> tuple[str, ...]:
        return self._layout.read(self)

    def __getitem__(self, key: str) -> str:
        value: str = self._layout.getters[key](self)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        getter = self._layout.getters.get(key)
        return default if getter is None else getter(self)

    def __contains__(self, key: object) -> bool:
        return key in self._layout.getters

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout.keys)

    def __len__(self) -> int:
        return len(self._layout.keys)

    def copy(self) -> dict[str, str]:
        return dict(zip(self._layout.keys, self._values, strict=True))

    def __or__(self, other: Mapping[str, str]) -> dict[str, str]:
        return {**self.copy(), **other}

    def __repr__(self) -> str:
        return f"Metadata({self.copy()!r})"

    def __reduce__(self) -> tuple[type[dict[str, str]], tuple[dict[str, str]]]:
        return (dict, (self.copy(),))

    __hash__ = None  # type: ignore[assignment]  # as a dict's view: unhashable


_layouts: dict[tuple[str, ...], Layout] = {}
_layouts_lock = threading.Lock()


def _layout(keys: tuple[str, ...]) -> Layout | None:
    """The layout of ``keys`` (made on first sight), None past :data:`MAX_LAYOUTS`."""
    found = _layouts.get(keys)
    if found is not None:
        return found
    with _layouts_lock:
        found = _layouts.get(keys)
        if found is None and len(_layouts) < MAX_LAYOUTS:
            found = _layouts[keys] = Layout(keys)
        return found


def compact(values: dict[str, str]) -> Mapping[str, str]:
    """``values`` (a dict the caller gives up) as a read-only :class:`Metadata`."""
    layout = _layout(tuple(values))
    if layout is None:
        return MappingProxyType(values)
    return layout.make(tuple(values.values()))


def compact_records(
    strings: list[str], numbers: npt.NDArray[np.integer[Any]], sizes: list[int]
) -> list[Mapping[str, str]]:
    """The records of a stored record table (:class:`ragls.store.codec.RecordTable`: every
    record's keys and values as numbers in ``strings``, key, value, key, value...; each
    record's number of pairs in ``sizes``) as read-only mappings, as :func:`compact` makes
    them, without a dict a record: the records that share keys (one layout) have their values
    read a column at a time. ValueError if a record names a key twice or the numbers do not
    add up (the table is not one a dict was written as)."""
    counts = np.asarray(sizes, np.int64)
    if (len(counts) and int(counts.min()) < 0) or 2 * int(counts.sum()) != len(numbers):
        raise ValueError("the stored records' sizes do not add up to their numbers")
    starts = np.zeros(len(counts), np.int64)
    np.cumsum(2 * counts[:-1], out=starts[1:])
    found: list[Mapping[str, str]] = [_EMPTY] * len(counts)
    steps = np.arange(2 * int(counts.max())) if len(counts) else np.zeros(0, np.int64)
    for size in np.unique(counts).tolist():
        of_size = np.flatnonzero(counts == size)
        for first in range(0, len(of_size), _BATCH):  # bounded room: 16x holds 880,000
            records = of_size[first : first + _BATCH]
            at = numbers[starts[records, None] + steps[: 2 * size]]
            keys = at[:, 0::2]
            left = np.arange(len(records))
            for _ in range(_SHAPES_AT_ONCE):  # one layout at a time: a corpus has a few
                if not len(left):
                    break
                same = (keys[left] == keys[left[0]]).all(axis=1)
                chosen, left = left[same], left[~same]
                made = _mappings(strings, keys[chosen[0]].tolist(), at[chosen])
                for position, mapping in zip(records[chosen].tolist(), made, strict=True):
                    found[position] = mapping
            for one in left.tolist():  # not a corpus's table (one made to be slow): each alone
                found[int(records[one])] = _mappings(strings, keys[one].tolist(), at[[one]])[0]
    return found


# Beyond this many distinct key sets among a batch of records of one size, the rest of the
# batch is read one record at a time; records are read a batch at a time.
_SHAPES_AT_ONCE = 64
_BATCH = 1 << 16
_EMPTY: Mapping[str, str] = MappingProxyType({})


def _mappings(
    strings: list[str], shape: list[int], at: npt.NDArray[np.integer[Any]]
) -> list[Mapping[str, str]]:
    """The mappings of records whose keys are ``shape`` and whose numbers are ``at``'s rows."""
    text = strings.__getitem__
    keys = tuple(map(text, shape))
    if len(set(keys)) != len(keys):
        raise ValueError(f"a stored record names a key twice: {keys!r}")
    columns = at[:, 1::2].T.tolist()
    rows: list[tuple[str, ...]] = (
        list(zip(*(map(text, column) for column in columns), strict=True))
        if keys
        else [()] * len(at)
    )
    layout = _layout(keys)
    if layout is None:
        return [MappingProxyType(dict(zip(keys, row, strict=True))) for row in rows]
    return list(map(layout.make, rows))


def held(values: object) -> Mapping[str, str]:
    """A stored document's metadata as a document holds it: a dict a decoder gave (the
    caller gives it up) made compact, or what :func:`compact_records` made, as it is.
    TypeError for anything else."""
    if type(values) is dict:
        return compact(values)
    if isinstance(values, Metadata) or type(values) is MappingProxyType:
        return values
    raise TypeError("a stored document's metadata is not a mapping")

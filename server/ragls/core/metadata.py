"""A document's metadata, held compactly (the speed issue's memory goal).

Every chunk carries a few metadata strings (``file``, ``format``, ``language``, ``start_line``,
``end_line``, and ``symbol`` and ``kind`` for code), and an index holds hundreds of thousands
of chunks. As a dict behind a read-only view, each chunk's metadata took about 320 bytes (a
hash table of eight entries and the view); the values themselves are interned and shared. Here
a chunk's metadata is its values in a tuple, and a *layout* (the keys, in order, and each key's
position) shared by every mapping with the same keys: about 150 bytes for seven values. The
mapping is read-only, compares equal to a dict with the same items, and pickles as a plain
dict (so stored generations and worker messages are as before).

Layouts are few in practice (the chunker's, a Markdown section's, an added document's); past
:data:`MAX_LAYOUTS` distinct ones (an API client adding documents with ever new keys), a
mapping falls back to a read-only dict view.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

MAX_LAYOUTS = 512


class Layout:
    """The keys of some metadata mappings, in order, and the position of each."""

    __slots__ = ("keys", "positions")

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self.positions = {key: position for position, key in enumerate(keys)}


class Metadata(Mapping[str, str]):
    """A read-only mapping of strings to strings: ``values`` in the order of ``layout.keys``
    (made by :func:`compact`)."""

    __slots__ = ("_layout", "_values")
    _layout: Layout
    _values: tuple[str, ...]

    def __getitem__(self, key: str) -> str:
        return self._values[self._layout.positions[key]]

    def get(self, key: str, default: Any = None) -> Any:
        position = self._layout.positions.get(key)
        return default if position is None else self._values[position]

    def __contains__(self, key: object) -> bool:
        return key in self._layout.positions

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout.keys)

    def __len__(self) -> int:
        return len(self._values)

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
    held = Metadata.__new__(Metadata)
    held._layout = layout
    held._values = tuple(values.values())
    return held

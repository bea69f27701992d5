"""A file's definitions and references packed as :class:`ragls.core.symbols.FileSymbols` holds
them, and the numbers of its references computed over arrays (SPEC §8, issue 28).

Columns are UTF-16 code units, as LSP counts them (:class:`Columns`: byte columns wherever the
line is ASCII). References are many (five for every definition in the standard library), so
their lines, columns, enclosing definitions and kinds are computed per file with numpy, from the
byte offsets of their names and of the source's line starts (tree-sitter counts rows by
``\\n`` and columns in bytes, as these do); only their names are Python strings, decoded and
interned once per file.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from itertools import chain
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ragls.core.symbols import Definition


class Columns:
    """Byte columns as UTF-16 code units (LSP's default), cheap for ASCII sources."""

    def __init__(self, source: bytes) -> None:
        self.ascii = source.isascii()
        self._lines = None if self.ascii else source.split(b"\n")

    def __call__(self, row: int, column: int) -> int:
        if self._lines is None or row >= len(self._lines):
            return column
        prefix = self._lines[row][:column]
        if prefix.isascii():
            return column
        return len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2


class PackedDefinitions:
    """A file's definitions in source order, packed as :class:`FileSymbols` holds them (names,
    kinds and containers interned; four numbers each), and each one's (start byte, end byte,
    index) for the references' enclosing definitions."""

    __slots__ = ("containers", "kinds", "names", "numbers", "spans")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.containers: list[str] = []
        self.numbers: list[int] = []
        self.spans: list[tuple[int, int, int]] = []

    def extend(self, definitions: Iterable[Definition]) -> None:
        intern = sys.intern
        for definition in definitions:
            self.names.append(intern(definition.name))
            self.kinds.append(intern(definition.kind))
            self.containers.append(intern(definition.container))
            self.numbers += definition[3:]


class ReferenceMatches(NamedTuple):
    """A file's reference matches, as :func:`file_symbols` collects them."""

    keys: list[tuple[int, int]]  # each match's name (start byte, end byte), in match order
    kinds: list[int]  # each match's kind, numbered as in ``kind_names``
    kind_names: tuple[str, ...]
    definition_keys: list[tuple[int, int]]  # the definitions' names: no references


def pack_references(
    found: ReferenceMatches,
    spans: list[tuple[int, int, int]],
    columns: Columns,
    source: bytes,
) -> tuple[tuple[str, ...], tuple[str, ...], array[int]]:
    """The references ``found`` packed as :class:`FileSymbols` holds them: names, distinct
    kinds, and five numbers each, in source order. Matches of the same name node count once,
    with the first match's kind; a definition's own name is no reference. The numbers are
    computed over arrays: lines and columns from where the source's lines start (byte columns,
    as the tree counts them), the enclosing definition from the definitions' spans; a name is
    its source text, decoded and interned once per file."""
    if not found.keys:
        return (), (), array("i")
    pairs = np.fromiter(chain.from_iterable(found.keys), np.int64, 2 * len(found.keys))
    pairs = pairs.reshape(-1, 2)
    keys = (pairs[:, 0] << 32) | pairs[:, 1]
    order = np.argsort(keys, kind="stable")  # by name node; among equal ones, match order
    keys = keys[order]
    first = np.empty(len(keys), np.bool_)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    kept = first & (pairs[order, 1] > pairs[order, 0])  # once each, never an empty name
    if found.definition_keys:
        defined = np.fromiter(
            chain.from_iterable(found.definition_keys), np.int64, 2 * len(found.definition_keys)
        ).reshape(-1, 2)
        defined = np.sort((defined[:, 0] << 32) | defined[:, 1])
        at = np.minimum(np.searchsorted(defined, keys), len(defined) - 1)
        kept &= defined[at] != keys
    chosen = order[kept]
    if not len(chosen):
        return (), (), array("i")
    starts, ends = pairs[chosen, 0], pairs[chosen, 1]
    count = len(chosen)
    numbers = np.empty((count, 5), np.intc)
    # kinds, numbered in the order they first occur
    kind_numbers = np.fromiter(found.kinds, np.intc, len(found.kinds))[chosen]
    present = np.flatnonzero(np.bincount(kind_numbers, minlength=len(found.kind_names)))
    if len(present) == 1:
        distinct = present
        numbers[:, 0] = 0
    else:
        first_at = [int(np.argmax(kind_numbers == number)) for number in present.tolist()]
        distinct = present[np.argsort(first_at)]
        renumber = np.zeros(len(found.kind_names), np.intc)
        renumber[distinct] = np.arange(len(distinct), dtype=np.intc)
        numbers[:, 0] = renumber[kind_numbers]
    # lines and byte columns
    newlines = np.flatnonzero(np.frombuffer(source, np.uint8) == 10)
    line_starts = np.concatenate((np.zeros(1, np.int64), newlines + 1))
    rows = np.searchsorted(newlines, starts)
    numbers[:, 1] = rows
    numbers[:, 2] = starts - line_starts[rows]
    numbers[:, 3] = ends - line_starts[np.searchsorted(newlines, ends)]
    numbers[:, 4] = _enclosing(starts, spans)
    if not columns.ascii:  # UTF-16 columns on the lines holding other characters
        wide = np.flatnonzero(np.frombuffer(source, np.uint8) >= 128)
        wide_rows = np.unique(np.searchsorted(newlines, wide))
        for index in np.flatnonzero(np.isin(rows, wide_rows)).tolist():
            row, column, end_column = numbers[index, 1:4].tolist()
            numbers[index, 2] = columns(row, column)
            numbers[index, 3] = columns(row, end_column)
    intern = sys.intern
    decoded: dict[bytes, str] = {}
    names: list[str] = []
    add_name = names.append
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        text = source[start:end]
        name = decoded.get(text)
        if name is None:
            name = decoded[text] = intern(text.decode("utf-8", "replace"))
        add_name(name)
    packed = array("i")
    packed.frombytes(numbers.tobytes())
    kinds = tuple(found.kind_names[number] for number in distinct.tolist())
    return tuple(names), kinds, packed


def _enclosing(
    starts: npt.NDArray[np.int64], spans: list[tuple[int, int, int]]
) -> npt.NDArray[np.intc]:
    """For each reference starting at one of ``starts``, the index of the innermost definition
    holding it, -1 for none: the last definition (in source order) starting at or before it,
    or else the definition that was open around that one, and so on, until one ends after the
    reference starts."""
    found = np.full(len(starts), -1, np.intc)
    if not spans:
        return found
    span_starts = np.array([span[0] for span in spans], np.int64)
    span_ends = np.array([span[1] for span in spans], np.int64)
    indexes = np.array([span[2] for span in spans], np.intc)
    outer = np.empty(len(spans), np.int64)  # the definition open around each, -1: none
    open_spans: list[int] = []
    for position, (start, _, _) in enumerate(spans):
        while open_spans and spans[open_spans[-1]][1] <= start:
            open_spans.pop()
        outer[position] = open_spans[-1] if open_spans else -1
        open_spans.append(position)
    at = np.searchsorted(span_starts, starts, side="right") - 1
    while True:
        ended = (at >= 0) & (span_ends[np.maximum(at, 0)] <= starts)
        if not ended.any():
            break
        at[ended] = outer[at[ended]]
    held = at >= 0
    found[held] = indexes[at[held]]
    return found

"""The symbol index: every definition and reference the chunked files hold (SPEC §8, issue 28).

Ingestion extracts one :class:`FileSymbols` per code file from the parse it chunks
(``ragls.ingest.tags``); :class:`SymbolIndex` keeps them by path, replaced file by file as the
indexer commits, and answers name queries (``workspace/symbol``) ranked by
:func:`match_tier` (exact > prefix > sub-token > fuzzy), then definitions before references,
then files outside tests before test files, then shorter names, path and line. Queries and names
are compared in lower case and without separators or spaces (:func:`compact`): a query written
``reconcile_ledger`` or ``reconcile ledger`` finds ``ReconcileLedger`` in every language's style.

Per-file values are compact because a large workspace holds millions of them: definitions and
references are each parallel tuples of names (and kinds, containers) and one array of integers,
unpacked only when asked for, and names are interned so a name used in a thousand places is
stored once (at 16x the standard library, 1.2 million definitions as tuples cost about 190 MB).
"""

from __future__ import annotations

import re
import sys
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ragls.core.ranking.rules import ROLES

# The ranking layer's test-file pattern (tests, specs, conftest...) decides what a test file is.
_TEST_PATH = next(role.path for role in ROLES if role.name == "test")

EXACT, PREFIX, SUB_TOKEN, SUBSTRING, FUZZY = range(5)
_SEPARATORS = "_-.$:"
_GAPS = re.compile(r"[\s_\-.$:]+")
_REFERENCE_FIELDS = 5  # per reference: kind index, line, column, end column, enclosing definition
_DEFINITION_FIELDS = 4  # per definition: line, column, end line, end column
_SHORT = np.iinfo(np.int16)


def narrowed(data: array[int]) -> array[int]:
    """``data`` as 16-bit numbers (typecode ``h``) when every one fits, as in most files (lines,
    columns and indexes under 32,768): half the memory of the references' numbers (at 1x the
    standard library 327,000 references, 6.5 -> 3.3 MB; 16x: 52 MB less); else as given.
    Readers index and slice it; they never depend on its typecode."""
    if data.typecode == "h" or not data:
        return data
    numbers = np.frombuffer(data, dtype=np.int32) if data.typecode == "i" else np.array(data)
    if int(numbers.min()) < _SHORT.min or int(numbers.max()) > _SHORT.max:
        return data
    return array("h", numbers.astype(np.int16).tobytes())


class Definition(NamedTuple):
    """A definition: ``line``/``column`` (0-based; columns in UTF-16 code units, as LSP counts
    them) are where its name starts, ``end_line``/``end_column`` where the definition ends."""

    name: str
    kind: str
    container: str  # the qualified name of the enclosing definition ("" at the top level)
    line: int
    column: int
    end_line: int
    end_column: int


class Reference(NamedTuple):
    """A use of a name (``kind``: call, class, type...) on ``line`` from ``column`` to
    ``end_column``; ``enclosing`` indexes the file's definition it is inside (-1: none)."""

    name: str
    kind: str
    line: int
    column: int
    end_column: int
    enclosing: int


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """One file's definitions and references, packed (see the module doc): names, kinds and
    containers as tuples of shared strings, the numbers in arrays; :attr:`definitions` and
    :meth:`references` unpack them when asked."""

    definition_names: tuple[str, ...] = ()
    definition_kinds: tuple[str, ...] = ()
    definition_containers: tuple[str, ...] = ()
    definition_data: array[int] = field(default_factory=lambda: array("i"))
    reference_names: tuple[str, ...] = ()
    reference_kinds: tuple[str, ...] = ()  # the distinct kinds, indexed by the packed data
    reference_data: array[int] = field(default_factory=lambda: array("i"))

    def __post_init__(self) -> None:
        set_attribute = object.__setattr__
        set_attribute(self, "definition_data", narrowed(self.definition_data))
        set_attribute(self, "reference_data", narrowed(self.reference_data))

    @staticmethod
    def of(definitions: Iterable[Definition], references: Iterable[Reference]) -> FileSymbols:
        """``definitions`` and ``references`` packed (names interned, reference kinds indexed)."""
        intern = sys.intern
        names: list[str] = []
        kinds: list[str] = []
        containers: list[str] = []
        data = array("i")
        for definition in definitions:
            names.append(intern(definition.name))
            kinds.append(intern(definition.kind))
            containers.append(intern(definition.container))
            data.extend(definition[3:])
        reference_names: list[str] = []
        reference_kinds: dict[str, int] = {}
        reference_data = array("i")
        for reference in references:
            reference_names.append(intern(reference.name))
            kind = reference_kinds.setdefault(reference.kind, len(reference_kinds))
            reference_data.extend((kind, *reference[2:]))
        return FileSymbols(
            tuple(names),
            tuple(kinds),
            tuple(containers),
            data,
            tuple(reference_names),
            tuple(reference_kinds),
            reference_data,
        )

    def __reduce__(self) -> tuple[Callable[..., FileSymbols], tuple[object, ...]]:
        # A worker's FileSymbols arrive in the main process with strings of their own; shared
        # again on arrival (every file calls `get`; a corpus copied 16 times names everything
        # 16 times), the symbol index holds each name once.
        return _interned, (
            self.definition_names,
            self.definition_kinds,
            self.definition_containers,
            self.definition_data,
            self.reference_names,
            self.reference_kinds,
            self.reference_data,
        )

    @property
    def definition_count(self) -> int:
        return len(self.definition_names)

    @property
    def definitions(self) -> tuple[Definition, ...]:
        """Every definition, unpacked (a new tuple each time: keep it while you need it)."""
        return tuple(map(self.definition_at, range(len(self.definition_names))))

    def definition_at(self, index: int) -> Definition:
        """The ``index``-th definition (IndexError past the last)."""
        data, step = self.definition_data, _DEFINITION_FIELDS
        return Definition(
            self.definition_names[index],
            self.definition_kinds[index],
            self.definition_containers[index],
            *data[index * step : (index + 1) * step],
        )

    def definitions_named(self, name: str) -> Iterator[Definition]:
        """The definitions of ``name`` (only those are unpacked)."""
        for index, each in enumerate(self.definition_names):
            if each == name:
                yield self.definition_at(index)

    @property
    def reference_count(self) -> int:
        return len(self.reference_names)

    def reference_at(self, index: int) -> Reference:
        """The ``index``-th reference (IndexError past the last)."""
        data, step = self.reference_data, _REFERENCE_FIELDS
        kind, line, column, end_column, enclosing = data[index * step : (index + 1) * step]
        return Reference(
            self.reference_names[index],
            self.reference_kinds[kind],
            line,
            column,
            end_column,
            enclosing,
        )

    def references_named(self, name: str) -> Iterator[Reference]:
        """The references to ``name`` (only those are unpacked)."""
        for index, each in enumerate(self.reference_names):
            if each == name:
                yield self.reference_at(index)

    def references(self) -> Iterator[Reference]:
        return map(self.reference_at, range(len(self.reference_names)))


def _interned(
    names: tuple[str, ...],
    kinds: tuple[str, ...],
    containers: tuple[str, ...],
    data: array[int],
    reference_names: tuple[str, ...],
    reference_kinds: tuple[str, ...],
    reference_data: array[int],
) -> FileSymbols:
    """A FileSymbols as unpickled, its strings interned (:meth:`FileSymbols.__reduce__`)."""
    intern = sys.intern
    return FileSymbols(
        tuple(map(intern, names)),
        tuple(map(intern, kinds)),
        tuple(map(intern, containers)),
        data,
        tuple(map(intern, reference_names)),
        tuple(map(intern, reference_kinds)),
        reference_data,
    )


NO_SYMBOLS = FileSymbols()


class SymbolView(NamedTuple):
    """A read-only view of the index, valid while :meth:`SymbolIndex.locked` holds its lock:
    each file's symbols, and name -> {path: how many definitions / references of it}."""

    files: Mapping[str, FileSymbols]
    definition_files: Mapping[str, Mapping[str, int]]
    reference_files: Mapping[str, Mapping[str, int]]


class SymbolMatch(NamedTuple):
    """One answer to a name query: a definition, or a reference (``definition`` None)."""

    path: str
    name: str
    tier: int
    definition: Definition | None
    reference: Reference | None


def _sub_token_starts(name: str) -> Iterator[int]:
    """Where the parts of ``name`` start: after ``_``, ``-``, ``.``, ``$``, at a capital after
    a lower-case letter or digit, at the last capital of an acronym before a lower-case one."""
    for index in range(1, len(name)):
        before, here = name[index - 1], name[index]
        after_separator = before in _SEPARATORS and here not in _SEPARATORS
        capital = here.isupper() and (
            before.islower()
            or before.isdigit()
            or (before.isupper() and index + 1 < len(name) and name[index + 1].islower())
        )
        if after_separator or capital:
            yield index


def compact(text: str) -> str:
    """``text`` in lower case without separators or spaces: how queries and names are compared,
    so ``reconcile_ledger``, ``reconcile ledger`` and ``ReconcileLedger`` are the same name."""
    return _GAPS.sub("", text.lower())


def match_tier(query: str, name: str) -> int | None:
    """How well ``name`` matches ``query`` (compared case-insensitively; ``query`` already
    lower case, and :func:`compact` for name queries): EXACT, PREFIX (both also when the name
    written without its separators is, or starts with, the query), SUB_TOKEN (a part of the
    name starts with it), SUBSTRING, FUZZY (its characters in order), or None."""
    lower = name.lower()
    if lower == query:
        return EXACT
    if lower.startswith(query):
        return PREFIX
    flat = compact(name) if _GAPS.search(lower) else lower
    if flat == query:
        return EXACT
    if flat.startswith(query):
        return PREFIX
    if query in flat:
        starts = _sub_token_starts(name)
        if any(compact(name[start:]).startswith(query) for start in starts):
            return SUB_TOKEN
        return SUBSTRING
    cursor = 0
    for character in query:
        cursor = lower.find(character, cursor) + 1
        if cursor == 0:
            return None
    return FUZZY


@lru_cache(maxsize=1 << 16)
def is_test_path(path: str) -> bool:
    return _TEST_PATH.search(path) is not None


class SymbolIndex:
    """Definitions and references by file, and by name for queries (see the module doc).
    Thread-safe: a commit replaces files under the lock a query holds while it scans."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, FileSymbols] = {}
        # name -> the files holding it, with how many definitions / references each has
        self._definition_files: dict[str, dict[str, int]] = {}
        self._reference_files: dict[str, dict[str, int]] = {}
        # per name map: name -> how many of its symbols are outside test files (none: absent),
        # so a query's names found only in tests are passed over without reading their files
        self._outside: dict[int, dict[str, int]] = {
            id(self._definition_files): {},
            id(self._reference_files): {},
        }
        # Files whose names are not yet in the per-name maps: a commit only files them here;
        # a daemon's session thread counts them after its run (count_names), else the first
        # query that needs the maps does (a restore or a cold index no longer spends its time
        # on them before it answers: 0.12 s of a 1x restart).
        self._uncounted: dict[str, FileSymbols] = {}
        self.definition_count = 0
        self.reference_count = 0
        self.version = 0  # changes with every change of the index (for caches built on it)
        # per name map: (version, its names joined by newlines, where each starts, the names)
        self._haystacks: dict[int, _Haystack] = {}

    def __len__(self) -> int:
        return len(self._files)

    def get(self, path: str) -> FileSymbols | None:
        return self._files.get(path)

    def paths(self) -> list[str]:
        """The files holding symbols."""
        with self._lock:
            return list(self._files)

    @contextmanager
    def locked(self) -> Iterator[SymbolView]:
        """The index, unchanged until the block ends (commits wait for it): for queries that
        read more than one file. Keep the block short; it holds back the indexer's commit."""
        with self._lock:
            self._count_names()
            yield SymbolView(
                MappingProxyType(self._files),
                MappingProxyType(self._definition_files),
                MappingProxyType(self._reference_files),
            )

    def replace(self, changes: Iterable[tuple[str, FileSymbols | None]]) -> None:
        """Set each path's symbols (None or empty symbols: the file holds none). The counts
        change at once; the per-name maps when a query next needs them."""
        with self._lock:
            self.version += 1
            uncounted = self._uncounted
            for path, symbols in changes:
                old = self._files.pop(path, None)
                if old is not None:
                    self.definition_count -= old.definition_count
                    self.reference_count -= old.reference_count
                    if uncounted.pop(path, None) is None:  # its names are in the maps
                        self._count(path, old, -1)
                if symbols is not None and (symbols.definition_names or symbols.reference_names):
                    self._files[path] = symbols
                    self.definition_count += symbols.definition_count
                    self.reference_count += symbols.reference_count
                    uncounted[path] = symbols

    def clear(self) -> None:
        with self._lock:
            self.version += 1
            self._files.clear()
            self._uncounted.clear()
            self._definition_files.clear()
            self._reference_files.clear()
            for outside in self._outside.values():
                outside.clear()
            self.definition_count = self.reference_count = 0

    @property
    def uncounted(self) -> int:
        """Files whose names are not in the per-name maps yet."""
        return len(self._uncounted)

    def count_names(self) -> None:
        """Put those files' names in the maps now: a daemon does it after each run, in the
        background, so that no query waits for it (at 16x the standard library about 2 s)."""
        with self._lock:
            self._count_names()

    def _count_names(self) -> None:
        """Put the files :meth:`replace` left uncounted in the per-name maps (lock held)."""
        if self._uncounted:
            for path, symbols in self._uncounted.items():
                self._count(path, symbols, 1)
            self._uncounted.clear()

    def _count(self, path: str, symbols: FileSymbols, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) ``path``'s names in the per-name maps."""
        in_tests = is_test_path(path)
        for names, by_name in (
            (symbols.definition_names, self._definition_files),
            (symbols.reference_names, self._reference_files),
        ):
            counted = Counter(names).items()  # each distinct name once
            if not in_tests:
                outside = self._outside[id(by_name)]
                for name, times in counted:
                    held = outside.get(name, 0) + sign * times
                    if held > 0:
                        outside[name] = held
                    else:
                        outside.pop(name, None)
            for name, times in counted:
                files = by_name.setdefault(name, {})
                count = files.get(path, 0) + sign * times
                if count > 0:
                    files[path] = count
                else:
                    files.pop(path, None)
                    if not files:
                        del by_name[name]

    def search(self, query: str, limit: int, *, references: bool = True) -> list[SymbolMatch]:
        """The best ``limit`` symbols whose name matches ``query`` (see the module doc); a
        blank query gives the definitions of files outside tests, by name. References are
        looked at only when the definitions found are fewer than ``limit``."""
        needle = compact(query)
        with self._lock:
            self._count_names()
            found = self._matches(needle, self._definition_files, limit, definitions=True)
            if references and len(found) < limit and needle:
                found += self._matches(needle, self._reference_files, limit, definitions=False)
        found.sort(key=_rank)
        return found[:limit]

    def _matches(
        self, needle: str, by_name: dict[str, dict[str, int]], limit: int, *, definitions: bool
    ) -> list[SymbolMatch]:
        """The best ``limit`` matches of ``needle`` among ``by_name``'s names, in any order."""
        if not needle:
            blank = [(FUZZY, name) for name in sorted(by_name)[: limit * 4]]
            return self._expand(blank, by_name, limit, definitions, tests=False)
        # Names holding the needle (exact, prefix, sub-token, substring) by one literal search;
        # the fuzzy tier, a scan of every name, only when they are fewer than ``limit``.
        # Each stage's names rank below every earlier stage's, so a stage is looked at only
        # while fewer than ``limit`` matches are found (the earlier stages then gave them all).
        starting, inside = self._names_holding(needle, by_name)
        found = self._expand(starting, by_name, limit, definitions, tests=True, ordered=True)
        if len(found) < limit:  # sub-token and substring matches
            tiers = [(t, name) for name in inside if (t := match_tier(needle, name)) is not None]
            found += self._expand(tiers, by_name, limit - len(found), definitions, tests=True)
        if len(found) < limit:
            held = {name for _, name in starting}.union(inside)
            fuzzy = [(FUZZY, n) for n in self._names_like(needle, by_name) if n not in held]
            found += self._expand(fuzzy, by_name, limit - len(found), definitions, tests=True)
        return found

    def _expand(
        self,
        tiers: list[tuple[int, str]],
        by_name: dict[str, dict[str, int]],
        limit: int,
        definitions: bool,
        *,
        tests: bool,
        ordered: bool = False,
    ) -> list[SymbolMatch]:
        """The symbols of the (tier, name) pairs, as many as the best ``limit`` need: per tier,
        the names outside tests first, then (``tests``) in test files, each in order of length;
        once ``limit`` matches are found that rank above everything left (a better tier, or
        this tier outside tests with a shorter name), the rest cannot reach the answer."""
        if not ordered:
            tiers.sort(key=lambda item: (item[0], len(item[1])))  # within a length, any order
        outside = self._outside[id(by_name)]
        found: list[SymbolMatch] = []
        better = 0  # matches of the tiers done
        for _, group in groupby(tiers, key=itemgetter(0)):
            chosen = list(group)
            in_tier = 0
            for in_tests in (False, True) if tests else (False,):
                certain = better + in_tier  # outside tests, when looking at the test files
                shorter = 0
                length, same_length = -1, 0
                for tier, name in chosen:
                    if len(name) != length:
                        shorter, length, same_length = shorter + same_length, len(name), 0
                    if certain + shorter >= limit:
                        return found
                    if not in_tests and name not in outside:
                        continue
                    added = self._add(found, by_name, tier, name, definitions, in_tests)
                    same_length += added
                    in_tier += added
            better += in_tier
        return found

    def _add(
        self,
        found: list[SymbolMatch],
        by_name: dict[str, dict[str, int]],
        tier: int,
        name: str,
        definitions: bool,
        in_tests: bool,
    ) -> int:
        """Append ``name``'s symbols in the files inside tests or outside them; how many."""
        before = len(found)
        for path in by_name[name]:
            if is_test_path(path) != in_tests:
                continue
            symbols = self._files[path]
            if definitions:
                found.extend(
                    SymbolMatch(path, name, tier, d, None) for d in symbols.definitions_named(name)
                )
            else:
                found.extend(
                    SymbolMatch(path, name, tier, None, r) for r in symbols.references_named(name)
                )
        return len(found) - before

    def _haystack(self, by_name: dict[str, dict[str, int]]) -> _Haystack:
        """``by_name``'s names joined by newlines, as written and :func:`compact`, with where
        each starts; kept until the index changes (lock held)."""
        cached = self._haystacks.get(id(by_name))
        if cached is None or cached.version != self.version:
            names = list(by_name)
            flat = [compact(name) for name in names]
            joined = "\n".join(flat)
            flat_lengths = np.fromiter(map(len, flat), np.int64, len(flat))
            flat_starts = np.zeros(len(flat), np.int64)
            np.cumsum(flat_lengths[:-1] + 1, out=flat_starts[1:])
            masks = _masks(joined, flat_starts)
            lengths = np.fromiter(map(len, names), np.int64, len(names))
            cached = _Haystack(
                self.version, names, joined, flat_starts, flat_lengths, masks, lengths
            )
            self._haystacks[id(by_name)] = cached
        return cached

    def _names_holding(
        self, needle: str, by_name: dict[str, dict[str, int]]
    ) -> tuple[list[tuple[int, str]], list[str]]:
        """The names whose :func:`compact` form holds ``needle`` (a literal search in C): those
        it starts, as (EXACT or PREFIX, name), and those it is inside of."""
        haystack = self._haystack(by_name)
        hits = np.fromiter(
            (hit.start() for hit in re.finditer(re.escape(needle), haystack.flat)), np.int64
        )
        if not len(hits):
            return [], []
        starts = haystack.flat_starts
        lines = np.searchsorted(starts, hits, side="right") - 1
        first = hits == starts[lines]
        names = haystack.names
        begun_lines = lines[first]
        whole = haystack.flat_lengths[begun_lines] == len(needle)
        tiers = np.where(whole, EXACT, PREFIX)
        # In rank order already (tier, then the name's length), as _expand takes them.
        order = np.argsort(tiers * (1 << 32) + haystack.lengths[begun_lines], kind="stable")
        starting = list(
            zip(
                tiers[order].tolist(),
                [names[line] for line in begun_lines[order].tolist()],
                strict=True,
            )
        )
        begun = set(begun_lines.tolist())
        inside = [
            names[line] for line in dict.fromkeys(lines[~first].tolist()) if line not in begun
        ]
        return starting, inside

    def _names_like(self, needle: str, by_name: dict[str, dict[str, int]]) -> list[str]:
        """The names holding ``needle``'s characters in order (any case, separators between):
        the names holding all of its characters (a bit mask per name, compared in numpy), then
        a possessive regex on each of those (lock held)."""
        haystack = self._haystack(by_name)
        wanted = int(_masks(needle, np.zeros(1, np.int64))[0])
        chosen = np.flatnonzero((haystack.masks & np.uint64(wanted)) == np.uint64(wanted))
        steps = "".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in needle)
        match = re.compile(steps, re.IGNORECASE).match
        names = haystack.names
        return [names[i] for i in chosen.tolist() if match(names[i]) is not None]


class _Haystack(NamedTuple):
    version: int
    names: list[str]
    flat: str  # the compact names joined by newlines
    flat_starts: npt.NDArray[np.int64]  # where each starts in ``flat``
    flat_lengths: npt.NDArray[np.int64]
    masks: npt.NDArray[np.uint64]  # per name, the characters it holds (:func:`_masks`)
    lengths: npt.NDArray[np.int64]  # per name, its length as written


# A bit per character: a-z, 0-9, then other characters folded into the remaining bits.
_BITS = np.array(
    [
        0
        if code == 10
        else 1 << (code - 97)
        if 97 <= code <= 122
        else 1 << (26 + code - 48)
        if 48 <= code <= 57
        else 1 << (36 + code % 20)
        for code in range(128)
    ],
    np.uint64,
)


def _masks(joined: str, starts: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """For each newline-separated part of ``joined`` (starting at ``starts``), the OR of its
    characters' bits (a character past ASCII: one of the last eight bits)."""
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass") + b"\n\0\0\0", np.uint32)
    bits = np.where(
        codes < 128, _BITS[np.minimum(codes, 127)], np.left_shift(np.uint64(1), 56 + codes % 8)
    ).astype(np.uint64)
    return np.bitwise_or.reduceat(bits, starts)


def _rank(match: SymbolMatch) -> tuple[int, bool, bool, int, str, int]:
    line = match.definition.line if match.definition is not None else 0
    if match.reference is not None:
        line = match.reference.line
    return (
        match.tier,
        match.definition is None,
        is_test_path(match.path),
        len(match.name),
        match.path,
        line,
    )

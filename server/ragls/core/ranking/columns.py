"""What the ranking layer reads of its candidates, as arrays (docs/retrieval.md, "Cost").

The layer's rules look at three things of a chunk besides its text: its file (roles, named
files, coherence), its symbol when it has a kind (definitions), and its fused score and best
rank. Reading them from each candidate's metadata cost a Python loop of dictionary look-ups per
candidate and query; here they are integers. :class:`Interner` numbers the strings (files and
symbols) once, when a chunk is indexed, and derives the per-string facts the rules need once
per string (a file's role, a symbol's lower-cased keys); :class:`Columns` holds the candidates
of one query as arrays over those numbers, so the rules are a few numpy operations per query.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ragls.core.ranking.rules import (
    COMMENT_LEADERS,
    FAMILIES,
    GENERATED_LINES,
    GENERATED_MARKER,
    LANGUAGE_FAMILIES,
    ROLES,
    Role,
)
from ragls.core.ranking.shape import NAME_SEPARATORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ArrayType = TypeVar("ArrayType", np.int32, np.int64)
NONE = -1  # the value number of a missing file or symbol
SOURCE_CODE = len(ROLES)  # the role number of source (no role)
GENERATED = next(number for number, role in enumerate(ROLES) if role.name == "generated")
UNKNOWN = -2  # a role not derived yet
NO_FAMILY = len(FAMILIES)  # the family number of a file of no language LANGUAGE_FAMILIES names
FILE_KEY = "file"
# A chunk's first and last lines in its metadata (numbers written as strings).
START_LINE_KEY, END_LINE_KEY = "start_line", "end_line"


@lru_cache(maxsize=1 << 14)
def role_of(path: str) -> Role | None:
    """The first role whose pattern matches ``path``; None for source."""
    for role in ROLES:
        if role.path.search(path):
            return role
    return None


def says_generated(text: str) -> bool:
    """Whether the first lines of ``text`` (a file's first chunk) say, in a comment, that the
    file is generated (:data:`~ragls.core.ranking.rules.GENERATED_MARKER`)."""
    head = text[: 200 * GENERATED_LINES]
    lowered = head.lower()
    if "generat" not in lowered and "bison" not in lowered:  # most files: one quick look
        return False
    for line in head.splitlines()[:GENERATED_LINES]:
        stripped = line.lstrip()
        if stripped.startswith(COMMENT_LEADERS) and GENERATED_MARKER.search(stripped):
            return True
    return False


def names_file(path: str, named: str) -> bool:
    """Whether ``path`` (lower case, relative to the root) is the file ``named`` (lower case)
    names: the same path, a path that ends with it, or an absolute path of a trace that ends
    with ``path``."""
    return path == named or path.endswith("/" + named) or named.endswith("/" + path)


def symbol_keys(symbol: str) -> tuple[str, str]:
    """A symbol lower-cased, whole and its last component (``Flask.route`` -> ``route``)."""
    lowered = symbol.lower()
    return lowered, NAME_SEPARATORS.split(lowered)[-1]


class Interner:
    """Strings numbered in order of first sight, and what the rules derive from each once.
    Append-only (a number never changes meaning); the owner serialises access."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._numbers: dict[str, int] = {}
        # Each file's role number once derived (UNKNOWN before), at the value's number + 1
        # (the first entry is NONE's: source); grown by doubling.
        self._roles = np.full(16, UNKNOWN, np.int64)
        self._roles[0] = SOURCE_CODE
        self._generated: set[int] = set()  # files whose first lines say they are generated
        self._files: list[int] = []  # the numbers of values met as a chunk's file
        self._files_derived = 0  # how many of ``_files`` :meth:`derive_roles` derived
        # Files by lower-cased base name, for a trace's frames (built on the first one asked)
        self._by_base_name: dict[str, list[int]] = {}
        self._named_files = 0  # how many of ``_files`` are in ``_by_base_name``
        # Each value's symbol keys (:func:`symbol_keys`, whole and last component) as their
        # numbers (:meth:`key_number`: the string's hash), at the value's number + 1 (entry 0
        # is NONE's); UNKNOWN until the value is tagged as a chunk's symbol (an index run) or
        # a search meets it (a restored index). No key string is kept: a table of the lower-
        # cased keys and their numbers took 7 MB at 1x the standard library (70,000 keys).
        self._key_numbers = np.full((16, 2), UNKNOWN, np.int64)
        self._key_numbers[0] = NONE
        # Each value's language family read as a path (its number in FAMILIES; NO_FAMILY for
        # none), at the value's number + 1, UNKNOWN until derived; grown by doubling.
        self._families = np.full(16, UNKNOWN, np.int64)
        self._families[0] = NO_FAMILY

    @classmethod
    def restored(cls, values: list[str], files: list[int], generated: list[int]) -> Interner:
        """An interner holding ``values`` (numbered in order), of which ``files`` are files'
        and ``generated`` files that say they are generated (as a stored generation kept
        them); roles are left to the searches that meet them."""
        interner = cls()
        interner.values = values
        interner._numbers = dict(zip(values, range(len(values)), strict=True))
        if len(interner._numbers) != len(values):
            raise ValueError("the stored interned values repeat a value")
        interner._files = files
        interner._files_derived = len(files)
        interner._generated = set(generated)
        return interner

    def state(self) -> tuple[list[str], list[int]]:
        """(the values, the files that say they are generated), for :meth:`restored`."""
        return list(self.values), sorted(self._generated)

    def number(self, value: str | None) -> int:
        if value is None:
            return NONE
        found = self._numbers.get(value)
        if found is None:
            found = self._numbers[value] = len(self.values)
            self.values.append(value)
        return found

    def file_and_symbol(self, metadata: Mapping[str, str]) -> tuple[int, int]:
        """The numbers of a chunk's file (NONE without one) and of its symbol where it has a
        symbol and a kind (the definition rule's condition; NONE otherwise)."""
        symbol = metadata.get("symbol")
        has_definition = bool(symbol) and bool(metadata.get("kind"))
        known = len(self.values)
        file = self.number(metadata.get(FILE_KEY))
        if file >= known:
            self._files.append(file)
        return file, self.number(symbol if has_definition else None)

    def files_named(self, named: str) -> list[int]:
        """The numbers of the files that ``named`` (a path, lower case) names
        (:func:`names_file`). The files are indexed by base name as they are met, the first
        time one is asked for after they were."""
        values, files = self.values, self._files
        for number in files[self._named_files :]:
            key = values[number].rsplit("/", 1)[-1].lower()
            self._by_base_name.setdefault(key, []).append(number)
        self._named_files = len(files)
        base = named.rsplit("/", 1)[-1]
        found = self._by_base_name.get(base, ())
        return [number for number in found if names_file(values[number].lower(), named)]

    def symbol_key_numbers(self, numbers: IntArray) -> IntArray:
        """For each value of ``numbers`` read as a symbol, the numbers of its two keys
        (:func:`symbol_keys`: lower-cased whole, last component; :meth:`key_number`), as
        columns; NONE for NONE. A value not derived yet has its keys derived then: a search
        compares its candidates' symbols with the query's names as integers, without reading
        (and lower-casing) a few hundred symbol strings each time."""
        self._key_numbers = grown = self._with_room(self._key_numbers)
        shifted = numbers + 1  # NONE (-1) reads entry 0
        found = grown[shifted]
        unknown = found[:, 0] == UNKNOWN
        if unknown.any():
            for number in set(numbers[unknown].tolist()):
                whole, last = symbol_keys(self.values[number])
                grown[number + 1] = (hash(whole), hash(last))
            found = grown[shifted]
        return found

    @staticmethod
    def key_number(key: str) -> int:
        """The number :meth:`symbol_key_numbers` gives ``key`` (lower case): its string hash,
        64 bits, never NONE (Python gives no string the hash -1). Two distinct keys sharing
        one would let a query's name match a symbol it does not name, about one chance in
        10^14 for a query's few names against 70,000 keys. A key hashed to UNKNOWN is derived
        again each time a search meets it, with the same answer."""
        return hash(key)

    def symbol_keys_derived(self) -> int:
        """How many values have their symbol keys derived (what the tests read to tell an
        index run's derivation from a search's)."""
        derived = self._key_numbers[1 : len(self.values) + 1, 0]
        return int(np.count_nonzero(derived != UNKNOWN))

    def _with_room(self, derived: npt.NDArray[ArrayType]) -> npt.NDArray[ArrayType]:
        """``derived`` (a row per value, at the value's number + 1) with a row for every value
        numbered so far: grown by doubling, the new rows UNKNOWN."""
        if len(derived) > len(self.values):
            return derived
        size = max(len(self.values) + 1, 2 * len(derived))
        grown = np.full((size, *derived.shape[1:]), UNKNOWN, derived.dtype)
        grown[: len(derived)] = derived
        return grown

    def mark_generated(self, number: int, generated: bool) -> None:
        """Record whether file ``number``'s first chunk says the file is generated (its role,
        when its path gives none, is then ``generated``; derived again on the next query)."""
        if generated == (number in self._generated):
            return
        if generated:
            self._generated.add(number)
        else:
            self._generated.discard(number)
        if number + 1 < len(self._roles):
            self._roles[number + 1] = UNKNOWN

    def derive_roles(self, now: bool = True) -> None:
        """Derive the roles of the files met since the last call (after their chunks were
        tagged, so a generated file's first chunk has been read): about 15 microseconds a
        file once, when it is indexed (37 ms for the 2,450 files of the standard library)
        rather than in its first searches, where a few hundred candidates' new files cost
        the first queries of a session about a millisecond each. ``now=False`` leaves them
        to the searches that meet them (a restored index: a restart answers first, and at
        16x the standard library deriving 39,000 files' roles would take 0.6 s)."""
        files = self._files
        if now and self._files_derived < len(files):
            self.roles_of(np.array(files[self._files_derived :], np.int64))
        self._files_derived = len(files)

    def families_of(self, numbers: IntArray) -> IntArray:
        """The language family of each value in ``numbers`` read as a path (:func:`family_code`;
        NO_FAMILY for NONE), derived once per value."""
        self._families, codes = self._derived(
            self._families, numbers, lambda number: family_code(self.values[number])
        )
        return codes

    def roles_of(self, numbers: IntArray) -> IntArray:
        """The role number of each value in ``numbers`` read as a path (:data:`SOURCE_CODE` for
        source, the empty path and NONE), derived for any value not derived yet (a value that
        is not a file's, a file whose generated mark changed)."""
        self._roles, codes = self._derived(
            self._roles,
            numbers,
            lambda number: _role_code(self.values[number], number in self._generated),
        )
        return codes

    def _derived(
        self, table: IntArray, numbers: IntArray, derive: Callable[[int], int]
    ) -> tuple[IntArray, IntArray]:
        """(``table`` grown to every value, the entries of ``numbers`` in it): a table of
        something derived from each value, at the value's number + 1 (NONE reads entry 0),
        UNKNOWN until ``derive`` gives it for a value a caller asks about."""
        table = self._with_room(table)
        shifted = numbers + 1
        codes = table[shifted]
        unknown = codes == UNKNOWN
        if unknown.any():
            for number in set(numbers[unknown].tolist()):
                table[number + 1] = derive(number)
            codes = table[shifted]
        return table, codes


def family_code(path: str) -> int:
    """The number in :data:`FAMILIES` of the language of ``path``'s extension, NO_FAMILY for a
    path without one of :data:`LANGUAGE_FAMILIES`' extensions."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return NO_FAMILY
    return LANGUAGE_FAMILIES.get(name.rsplit(".", 1)[1].lower(), NO_FAMILY)


def _role_code(path: str, generated: bool = False) -> int:
    role = role_of(path) if path else None
    if role is None:
        return GENERATED if generated else SOURCE_CODE
    return ROLES.index(role)


@dataclass(frozen=True, slots=True)
class Columns:
    """One query's candidates in fused order (best first), as arrays."""

    scores: FloatArray  # fused scores
    best_ranks: IntArray  # the best rank any stream gave each
    files: IntArray  # Interner numbers of metadata ``file``; NONE without one
    symbols: IntArray  # Interner numbers of symbols with a kind; NONE otherwise
    interner: Interner
    ids_of: Callable[[IntArray], Sequence[str]]  # candidates' document ids (for ties), by position
    texts_of: Callable[[int], list[str]]  # the contents of the first n candidates

    def __len__(self) -> int:
        return len(self.scores)

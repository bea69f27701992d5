"""The symbol index as parts of a stored generation (SPEC §11, issue 28).

Every file's definitions and references are written with the generation, so a warm start has
them without reading a file: each distinct name, kind and container once (a table of the
codec), every definition's name, kind and container and every reference's name as its number in
it (an ``int32`` array: a warm start decodes and interns each string once, not each of the 5
million references of 16x the standard library), every other number in two ``int32`` arrays
(four per definition, five per reference), and per file how many of each it holds. A
generation stored before the strings were numbered holds the four lists of strings whole; it
is read as it was written. A generation stored without these parts
(written before symbols existed) restores files without symbols; such a generation's file
records were also made under another pipeline key, so the first run re-reads those files.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.core.symbols import FileSymbols

OBJECTS = "symbols"
DEFINITION_NUMBERS = "symbols-definitions"
REFERENCE_NUMBERS = "symbols-references"
STRING_NUMBERS = "symbols-strings"
_DEFINITION_FIELDS = 4  # line, column, end line, end column
_REFERENCE_FIELDS = 5


def _wide(data: array[int]) -> array[int]:
    """A file's numbers as 32-bit ones (a file holds them narrowed where they fit:
    :func:`ragls.core.symbols.narrowed`); the stored parts keep 32 bits."""
    if data.typecode == "i":
        return data
    return array("i", np.asarray(data, dtype=np.int32).tobytes())


def symbol_parts(files: Mapping[str, FileSymbols]) -> tuple[dict[str, Any], dict[str, object]]:
    """(arrays, objects) holding ``files``."""
    paths, counts, kinds_per_file = [], [], []
    names: list[str] = []
    kinds: list[str] = []
    containers: list[str] = []
    reference_names: list[str] = []
    definition_numbers = array("i")
    reference_numbers = array("i")
    for path, symbols in files.items():
        paths.append(path)
        counts.append([symbols.definition_count, symbols.reference_count])
        kinds_per_file.append(list(symbols.reference_kinds))
        names.extend(symbols.definition_names)
        kinds.extend(symbols.definition_kinds)
        containers.extend(symbols.definition_containers)
        definition_numbers.extend(_wide(symbols.definition_data))
        reference_names.extend(symbols.reference_names)
        reference_numbers.extend(_wide(symbols.reference_data))
    # Each distinct string once, every name, kind, container and reference name as its number.
    numbered: dict[str, int] = {}
    every = [*names, *kinds, *containers, *reference_names]
    string_numbers = np.fromiter(
        (numbered.setdefault(text, len(numbered)) for text in every), np.int32, len(every)
    )
    objects: dict[str, object] = {
        "paths": paths,
        "counts": counts,
        "reference_kinds": kinds_per_file,
        "strings": list(numbered),
    }
    arrays = {
        DEFINITION_NUMBERS: np.frombuffer(definition_numbers, dtype=np.int32).copy(),
        REFERENCE_NUMBERS: np.frombuffer(reference_numbers, dtype=np.int32).copy(),
        STRING_NUMBERS: string_numbers,
    }
    return arrays, {OBJECTS: objects}


def _check_reference_kinds(
    paths: list[str],
    counts: list[list[int]],
    reference_kinds: list[list[str]],
    numbers: npt.NDArray[np.int32],
) -> None:
    """ValueError unless every stored reference's kind is one its file lists, checked for all
    references at once (a generator over the 327,000 of the standard library took longer)."""
    try:
        sizes = np.array([int(count[1]) for count in counts], np.int64)
    except (TypeError, ValueError, IndexError):
        raise ValueError("the stored symbols' counts are not pairs of numbers") from None
    total = int(sizes.sum()) if len(sizes) else 0
    if (len(sizes) and int(sizes.min()) < 0) or total * _REFERENCE_FIELDS != len(numbers):
        raise ValueError("the stored symbols' counts do not add up")
    limits = np.repeat(np.array([len(kinds) for kinds in reference_kinds], np.int64), sizes)
    wrong = np.flatnonzero(numbers[0::_REFERENCE_FIELDS] >= limits)
    if len(wrong):
        file = int(np.searchsorted(np.cumsum(sizes), wrong[0], side="right"))
        raise ValueError(f"a stored reference of {paths[file]} has no kind")


def _strings(
    arrays: Mapping[str, Any], described: dict[str, Any], definitions: int
) -> tuple[list[str], list[str], list[str], list[str]]:
    """(names, kinds, containers, reference names): from the distinct strings and their
    numbers (each string decoded and interned once), or from the four lists a generation
    stored before 2026-12-07 holds."""
    intern = sys.intern
    if "strings" not in described:
        names, kinds, containers, references = (
            [intern(text) for text in described[key]]
            for key in ("names", "kinds", "containers", "reference_names")
        )
        return names, kinds, containers, references
    table = [intern(text) for text in described["strings"]]
    numbers = np.asarray(arrays[STRING_NUMBERS])
    if numbers.dtype.kind != "i" or numbers.ndim != 1 or len(numbers) < 3 * definitions:
        raise ValueError("the stored symbols' string numbers do not fit their definitions")
    if len(numbers) and not 0 <= int(numbers.min()) <= int(numbers.max()) < len(table):
        raise ValueError("a stored symbol's string number names no string")
    every = list(map(table.__getitem__, numbers.tolist()))
    first, second, third = definitions, 2 * definitions, 3 * definitions
    return every[:first], every[first:second], every[second:third], every[third:]


def restored_symbols(
    arrays: Mapping[str, Any], objects: Mapping[str, object]
) -> dict[str, FileSymbols]:
    """The files :func:`symbol_parts` wrote ({} when the parts are absent); ValueError or
    TypeError when they do not fit together."""
    described = objects.get(OBJECTS)
    if described is None:
        return {}
    if not isinstance(described, dict):
        raise TypeError("the stored symbols are not an object")
    definition_numbers = np.asarray(arrays[DEFINITION_NUMBERS], dtype=np.int32)
    reference_numbers = np.asarray(arrays[REFERENCE_NUMBERS], dtype=np.int32)
    definitions = len(definition_numbers) // _DEFINITION_FIELDS
    names, kinds, containers, reference_names = _strings(arrays, described, definitions)
    paths, counts, reference_kinds = (
        described["paths"],
        described["counts"],
        described["reference_kinds"],
    )
    if not (len(paths) == len(counts) == len(reference_kinds)):
        raise ValueError("the stored symbols' per-file lists differ in length")
    if not (len(names) == len(kinds) == len(containers)):
        raise ValueError("the stored definitions' lists differ in length")
    if len(definition_numbers) != _DEFINITION_FIELDS * len(names):
        raise ValueError("the stored definitions' numbers do not fit their names")
    if len(reference_numbers) != _REFERENCE_FIELDS * len(reference_names):
        raise ValueError("the stored references' numbers do not fit their names")
    _check_reference_kinds(paths, counts, reference_kinds, reference_numbers)
    files: dict[str, FileSymbols] = {}
    definition_at = reference_at = 0
    for path, (definition_count, reference_count), file_kinds in zip(
        paths, counts, reference_kinds, strict=True
    ):
        ending = definition_at + definition_count
        definition_data = array(
            "i",
            definition_numbers[
                definition_at * _DEFINITION_FIELDS : ending * _DEFINITION_FIELDS
            ].tobytes(),
        )
        stop = reference_at + reference_count
        data = array(
            "i",
            reference_numbers[
                reference_at * _REFERENCE_FIELDS : stop * _REFERENCE_FIELDS
            ].tobytes(),
        )
        files[path] = FileSymbols(
            tuple(names[definition_at:ending]),
            tuple(kinds[definition_at:ending]),
            tuple(containers[definition_at:ending]),
            definition_data,
            tuple(reference_names[reference_at:stop]),
            tuple(file_kinds),
            data,
        )
        definition_at = ending
        reference_at = stop
    if definition_at != len(names) or reference_at != len(reference_names):
        raise ValueError("the stored symbols' counts do not add up")
    return files

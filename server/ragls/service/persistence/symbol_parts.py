"""The symbol index as parts of a stored generation (SPEC §11, issue 28).

Every file's definitions and references are written with the generation, so a warm start has
them without reading a file: names, kinds and containers as string lists (the codec's tables),
every number in two ``int32`` arrays (seven per definition less its three strings, five per
reference), and per file how many of each it holds. A generation stored without these parts
(written before symbols existed) restores files without symbols; such a generation's file
records were also made under another pipeline key, so the first run re-reads those files.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from ragls.core.symbols import FileSymbols

OBJECTS = "symbols"
DEFINITION_NUMBERS = "symbols-definitions"
REFERENCE_NUMBERS = "symbols-references"
_DEFINITION_FIELDS = 4  # line, column, end line, end column
_REFERENCE_FIELDS = 5


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
        definition_numbers.extend(symbols.definition_data)
        reference_names.extend(symbols.reference_names)
        reference_numbers.extend(symbols.reference_data)
    objects: dict[str, object] = {
        "paths": paths,
        "counts": counts,
        "reference_kinds": kinds_per_file,
        "names": names,
        "kinds": kinds,
        "containers": containers,
        "reference_names": reference_names,
    }
    arrays = {
        DEFINITION_NUMBERS: np.frombuffer(definition_numbers, dtype=np.int32).copy(),
        REFERENCE_NUMBERS: np.frombuffer(reference_numbers, dtype=np.int32).copy(),
    }
    return arrays, {OBJECTS: objects}


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
    intern = sys.intern
    reference_numbers = np.asarray(arrays[REFERENCE_NUMBERS], dtype=np.int32)
    names, kinds, containers = (
        [intern(text) for text in described[key]] for key in ("names", "kinds", "containers")
    )
    reference_names = [intern(text) for text in described["reference_names"]]
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
        if any(kind >= len(file_kinds) for kind in data[0::_REFERENCE_FIELDS]):
            raise ValueError(f"a stored reference of {path} has no kind")
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

"""The symbol index as parts of a stored generation: numbered strings, and the older layout."""

from __future__ import annotations

import numpy as np
import pytest

from ragls.core.symbols import Definition, FileSymbols, Reference
from ragls.service.persistence import symbol_parts
from ragls.store import codec


def files() -> dict[str, FileSymbols]:
    made = {}
    for number in range(12):
        definitions = [
            Definition(f"handler_{number % 4}", "function", "", 3 * line, 4, 3 * line + 2, 0)
            for line in range(3)
        ] + [Definition("Router", "class", f"app{number}", 40, 0, 60, 1)]
        references = [
            Reference(name, kind, 70 + line, 4, 4 + len(name), 0)
            for line, (name, kind) in enumerate(
                [("handler_1", "call"), ("Router", "class"), ("caf\u00e9", "call")]
            )
        ]
        made[f"src/m{number}.py"] = FileSymbols.of(definitions, references)
    return made


def content(found: dict[str, FileSymbols]) -> dict[str, tuple[object, ...]]:
    return {
        path: (symbols.definitions, tuple(symbols.references())) for path, symbols in found.items()
    }


def stored(held: dict[str, FileSymbols]) -> tuple[dict[str, object], dict[str, object]]:
    """What a load gives back: the objects through the codec, the arrays as they are."""
    arrays, objects = symbol_parts.symbol_parts(held)
    decoded = codec.decode(codec.encode(objects[symbol_parts.OBJECTS]))
    return arrays, {symbol_parts.OBJECTS: decoded}


def test_symbols_come_back_as_they_were_stored() -> None:
    held = files()
    arrays, objects = stored(held)
    described = objects[symbol_parts.OBJECTS]
    assert isinstance(described, dict)
    # Each distinct string once: names, kinds and the twelve containers, of 12 files.
    assert sorted(described["strings"]) == sorted(
        ["handler_0", "handler_1", "handler_2", "handler_3", "Router", "caf\u00e9"]
        + ["function", "class", ""]
        + [f"app{number}" for number in range(12)]
    )
    assert content(symbol_parts.restored_symbols(arrays, objects)) == content(held)


def test_a_generation_stored_with_the_four_string_lists_is_read_as_before() -> None:
    held = files()
    arrays, objects = stored(held)
    described = dict(objects[symbol_parts.OBJECTS])  # type: ignore[call-overload]
    strings = described.pop("strings")
    numbers = arrays.pop(symbol_parts.STRING_NUMBERS)
    every = [strings[n] for n in numbers.tolist()]
    count = len(arrays[symbol_parts.DEFINITION_NUMBERS]) // 4
    described |= {
        "names": every[:count],
        "kinds": every[count : 2 * count],
        "containers": every[2 * count : 3 * count],
        "reference_names": every[3 * count :],
    }
    restored = symbol_parts.restored_symbols(arrays, {symbol_parts.OBJECTS: described})
    assert content(restored) == content(held)


def test_string_numbers_that_do_not_fit_are_refused() -> None:
    arrays, objects = stored(files())
    numbers = arrays[symbol_parts.STRING_NUMBERS]
    for bad, reason in (
        (np.concatenate([numbers[:-1], [10_000]]).astype(np.int32), "names no string"),
        (numbers[:10], "do not fit"),
    ):
        with pytest.raises(ValueError, match=reason):
            symbol_parts.restored_symbols({**arrays, symbol_parts.STRING_NUMBERS: bad}, objects)


def test_a_reference_whose_kind_its_file_does_not_list_is_refused() -> None:
    arrays, objects = stored(files())
    numbers = arrays[symbol_parts.REFERENCE_NUMBERS].copy()
    numbers[5 * 4] = 7  # the fifth reference (src/m1.py's second): its file lists two kinds
    with pytest.raises(ValueError, match=r"a stored reference of src/m1\.py has no kind"):
        symbol_parts.restored_symbols({**arrays, symbol_parts.REFERENCE_NUMBERS: numbers}, objects)

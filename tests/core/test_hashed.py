"""Keys kept sorted beside a number each (ragls.core.hashed)."""

from __future__ import annotations

import numpy as np

from ragls.core.hashed import SortedKeys, string_keys


def test_keys_found_one_by_one_or_many_at_once_in_any_order() -> None:
    rng = np.random.default_rng(7)
    keys = rng.integers(-(2**62), 2**62, 500)
    table = SortedKeys(np.int32)
    table.add(keys[:300], np.arange(300))
    table.add(keys[300:], np.arange(300, 500))
    asked = np.concatenate([keys[::-1], rng.integers(-(2**62), 2**62, 100)])
    for count in (10, len(asked)):  # searched as given, and sorted first
        numbers, hit = table.find(asked[:count])
        expected = [499 - n if n < 500 else -1 for n in range(count)]
        assert numbers.tolist() == expected and hit.tolist() == [n < 500 for n in range(count)]
    assert [table.find_one(int(key)) for key in keys[:3]] == [0, 1, 2]
    assert table.find_one(int(asked[-1])) is None
    assert not table.repeats()
    table.add(keys[:1], np.array([7]))
    assert table.repeats()


def test_an_empty_table_finds_nothing() -> None:
    numbers, hit = SortedKeys().find(string_keys(["a", "b"], 2))
    assert numbers.tolist() == [-1, -1] and not hit.any()
    assert SortedKeys().find_one(hash("a")) is None

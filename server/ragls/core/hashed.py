"""64-bit keys (strings' hashes) kept sorted beside a number each, looked up with numpy: the
table under :mod:`ragls.core.vocabulary` (a term's id) and :mod:`ragls.core.splits` (an
identifier's split). No object is kept per key.

Keys are Python's string hashes: 64 bits, so two distinct strings of one table sharing a key
(about one chance in 10^9 for a quarter million strings) would share a number. Each user says
so where it matters.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

Keys = npt.NDArray[np.int64]

# Below this many keys a look-up searches them in the order given (sorting costs more).
_SORT_FROM = 64


def string_keys(strings: Iterable[str], count: int) -> Keys:
    """The keys of ``count`` strings."""
    return np.fromiter(map(hash, strings), np.int64, count)


class SortedKeys:
    """Keys, ascending, each with a number (of ``dtype``)."""

    def __init__(self, dtype: type[np.signedinteger] = np.int64) -> None:
        self.keys: Keys = np.zeros(0, np.int64)
        self.numbers = np.zeros(0, dtype)

    def __len__(self) -> int:
        return len(self.keys)

    def find_one(self, key: int) -> int | None:
        """``key``'s number, None if it has none."""
        keys = self.keys
        at = keys.searchsorted(key)  # the method: a third of np.searchsorted's cost here
        if at < len(keys) and keys[at] == key:
            return int(self.numbers[at])
        return None

    def find(self, keys: Keys) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """(each of ``keys``' number, whether it has one); the number is -1 where not."""
        if not len(self.keys):
            return np.full(len(keys), -1, np.int64), np.zeros(len(keys), np.bool_)
        at = np.minimum(self._places(keys), len(self.keys) - 1)
        hit = self.keys[at] == keys
        return np.where(hit, self.numbers[at], -1).astype(np.int64), hit

    def add(self, keys: Keys, numbers: npt.NDArray[np.integer]) -> None:
        """Add ``keys`` (not held yet) with their ``numbers``."""
        order = np.argsort(keys, kind="stable")
        keys, numbers = keys[order], numbers[order]
        places = np.searchsorted(self.keys, keys)
        self.keys = np.insert(self.keys, places, keys)
        self.numbers = np.insert(self.numbers, places, numbers.astype(self.numbers.dtype))

    def repeats(self) -> bool:
        """Whether a key is held twice."""
        keys = self.keys
        return len(keys) > 1 and bool((keys[1:] == keys[:-1]).any())

    def _places(self, keys: Keys) -> npt.NDArray[np.intp]:
        """Where each of ``keys`` is or would go. Many keys are searched in ascending order:
        each search then starts near the last one, where keys in hash order jump across the
        whole array (about three times faster for 60,000)."""
        if len(keys) < _SORT_FROM:
            return np.searchsorted(self.keys, keys)
        order = np.argsort(keys)
        places = np.empty(len(keys), np.intp)
        places[order] = np.searchsorted(self.keys, keys[order])
        return places

"""The committed generation's file records, kept so that a changed-paths run costs the paths it
touches rather than the size of the source (SPEC §8).

:class:`FileRecords` maps a relative path to its :class:`~ragls.ingest.fingerprint.FileRecord`
and keeps, as records come and go, the totals a run reports (files, chunks, bytes) and a
directory tree of the paths, so "every record at or below this path" is a walk of that subtree.
A run stages its changes in a :class:`StagedRecords` over the committed records, which stay
untouched until :meth:`StagedRecords.commit` applies the changes in place: a refused, cancelled
or failed run simply drops its stage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, MutableMapping
from typing import TypeVar

from ragls.ingest.admission import Skipped
from ragls.ingest.fingerprint import FileRecord

V = TypeVar("V")


class PathTree:
    """The directories of a set of relative POSIX paths ("" is the root), each with its
    children's names, so the paths at or below a path are found in time of that subtree."""

    def __init__(self) -> None:
        self._children: dict[str, set[str]] = {}
        self._leaves: set[str] = set()

    def add(self, path: str) -> None:
        if path in self._leaves:
            return
        self._leaves.add(path)
        child = path
        while child:
            parent = child.rpartition("/")[0]
            siblings = self._children.setdefault(parent, set())
            known = child in siblings
            siblings.add(child)
            if known:
                return
            child = parent

    def discard(self, path: str) -> None:
        if path not in self._leaves:
            return
        self._leaves.discard(path)
        child = path  # climb while the path left behind is neither a leaf nor a directory
        while child and child not in self._leaves and not self._children.get(child):
            self._children.pop(child, None)
            parent = child.rpartition("/")[0]
            self._children[parent].discard(child)
            child = parent

    def below(self, path: str) -> list[str]:
        """The paths of the set equal to ``path`` or under it ("" : all of them)."""
        found = [path] if path in self._leaves else []
        if path not in self._children:
            return found
        stack = [path]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                if child in self._leaves:
                    found.append(child)
                if child in self._children:
                    stack.append(child)
        return found


class PathMap(Mapping[str, V]):
    """A dict by relative path with :meth:`below`; changed through :meth:`put` and :meth:`drop`."""

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        self._by_path: dict[str, V] = {}
        self._tree = PathTree()
        for path, value in (items or {}).items():
            self.put(path, value)

    def __getitem__(self, path: str) -> V:
        return self._by_path[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_path)

    def __len__(self) -> int:
        return len(self._by_path)

    def __contains__(self, path: object) -> bool:
        return path in self._by_path

    def below(self, path: str) -> list[str]:
        return self._tree.below(path)

    def put(self, path: str, value: V) -> None:
        if path in self._by_path:
            self.drop(path)
        self._by_path[path] = value
        self._tree.add(path)

    def drop(self, path: str) -> None:
        if self._by_path.pop(path, None) is not None:
            self._tree.discard(path)


class FileRecords(PathMap[FileRecord]):
    """File records by path, with the totals of the files they hold (see the module docstring).
    ``files`` and ``file_bytes`` count records whose content was admitted (no skip), ``chunks``
    every record's chunks, ``all_bytes`` every record's size."""

    def __init__(self, items: Mapping[str, FileRecord] | None = None) -> None:
        self.files = self.chunks = self.file_bytes = self.all_bytes = 0
        super().__init__(items)

    def put(self, path: str, value: FileRecord) -> None:
        super().put(path, value)
        self._count(value, 1)

    def drop(self, path: str) -> None:
        record = self._by_path.get(path)
        super().drop(path)
        if record is not None:
            self._count(record, -1)

    def _count(self, record: FileRecord | None, sign: int) -> None:
        _add_counts(self, record, sign)

    def stage(self) -> StagedRecords:
        """A run's changes over these records (see :class:`StagedRecords`)."""
        return StagedRecords(self)


class StagedRecords(MutableMapping[str, FileRecord]):
    """Changes over committed :class:`FileRecords`: reads see the changes first, the base stays
    as it is until :meth:`commit`. Totals are kept as changes are made: reading them is O(1)."""

    def __init__(self, base: FileRecords) -> None:
        self.base = base
        self.changes: dict[str, FileRecord | None] = {}  # None: removed
        # The totals of the staged view, kept as changes are made (as FileRecords keeps its).
        self.files, self.chunks = base.files, base.chunks
        self.file_bytes, self.all_bytes = base.file_bytes, base.all_bytes

    def __getitem__(self, path: str) -> FileRecord:
        if path in self.changes:
            record = self.changes[path]
            if record is None:
                raise KeyError(path)
            return record
        return self.base[path]

    def __setitem__(self, path: str, record: FileRecord) -> None:
        _add_counts(self, self.get(path), -1)
        self.changes[path] = record
        _add_counts(self, record, 1)

    def __delitem__(self, path: str) -> None:
        _add_counts(self, self[path], -1)  # KeyError when it is not staged
        if path in self.base:
            self.changes[path] = None
        else:
            del self.changes[path]

    def __contains__(self, path: object) -> bool:
        if path in self.changes:
            return self.changes[path] is not None
        return path in self.base

    def __iter__(self) -> Iterator[str]:
        for path in self.base:
            if path not in self.changes:
                yield path
        for path, record in self.changes.items():
            if record is not None:
                yield path

    def __len__(self) -> int:
        return len(self.base) + sum(
            (record is not None) - (path in self.base) for path, record in self.changes.items()
        )

    def commit(self) -> FileRecords:
        """Apply the changes to the base, in place, and return it."""
        for path, record in self.changes.items():
            if record is None:
                self.base.drop(path)
            else:
                self.base.put(path, record)
        self.changes = {}
        return self.base


def _add_counts(totals: FileRecords | StagedRecords, record: FileRecord | None, sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) a record's share of ``totals``; None has none."""
    if record is None:
        return
    totals.chunks += sign * len(record.documents)
    totals.all_bytes += sign * record.size
    if record.skip is None:
        totals.files += sign
        totals.file_bytes += sign * record.size


class Skips(PathMap[Skipped]):
    """The generation's skipped paths, with how many there are for each reason."""

    def __init__(self, items: Mapping[str, Skipped] | None = None) -> None:
        self.reasons: Counter[str] = Counter()
        super().__init__(items)

    def put(self, path: str, value: Skipped) -> None:
        self.drop(path)
        super().put(path, value)
        self.reasons[value.reason.value] += 1

    def drop(self, path: str) -> None:
        skip = self._by_path.get(path)
        super().drop(path)
        if skip is not None:
            self.reasons[skip.reason.value] -= 1
            if not self.reasons[skip.reason.value]:
                del self.reasons[skip.reason.value]

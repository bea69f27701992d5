"""Traversal only: walk a root and yield candidates or Skipped values (SPEC §8).

Symbolic links are never followed (to files or directories); FIFOs, sockets and devices are never
opened; excluded directories are pruned, never walked. Entries are visited in byte order of their
names, so runs are deterministic. A directory that cannot be listed is reported and the walk goes
on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from ragls.ingest.admission import Admission, Skipped, SkipReason


@dataclass(frozen=True, slots=True)
class Candidate:
    """A regular file admitted by the walk, with the stat values the fingerprint pre-check uses."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int

    @classmethod
    def from_stat(cls, path: str, info: os.stat_result) -> Candidate:
        return cls(path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def walk(admission: Admission, start: str = "") -> Iterator[Candidate | Skipped]:
    """Candidates and skips below the directory ``start`` ("" = the root), which the caller
    has admitted (the root's own ignore-file refusal is reported here)."""
    if not start:
        root_refusal = admission.stack.rules_for("").refused
        if root_refusal is not None:
            yield Skipped("", SkipReason.IGNORE_FILE_REFUSED, root_refusal)
            return
    pending = [start]
    while pending:
        directory = pending.pop()
        absolute = admission.root / directory if directory else admission.root
        try:
            with os.scandir(absolute) as listing:
                entries = sorted(listing, key=lambda entry: os.fsencode(entry.name))
        except OSError as error:
            yield Skipped(directory, SkipReason.UNREADABLE, error.strerror or str(error))
            continue
        subdirectories = []
        for entry in entries:
            relative = f"{directory}/{entry.name}" if directory else entry.name
            try:
                if entry.is_symlink():
                    yield Skipped(relative, SkipReason.SYMLINK)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    verdict = admission.directory_verdict(relative)
                    if verdict is None:
                        subdirectories.append(relative)
                    else:
                        yield verdict
                    continue
                if not entry.is_file(follow_symlinks=False):
                    yield Skipped(relative, SkipReason.SPECIAL)
                    continue
                if admission.is_ignore_file(relative):
                    continue
                verdict = admission.file_verdict(relative)
                if verdict is not None:
                    yield verdict
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError as error:
                yield Skipped(relative, SkipReason.UNREADABLE, error.strerror or str(error))
                continue
            yield Candidate.from_stat(relative, info)
        pending.extend(reversed(subdirectories))

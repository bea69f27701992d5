"""Limits: the one frozen admission policy shared by FileIndexer and FileIngestionService (SPEC §8).

Per-file caps (``max_file_bytes``, ``max_chunks_per_file``) skip and report that file;
per-source caps (``max_files``, ``max_total_bytes``, and ``max_chunks``, the chunks a source may
hold in all) reject the whole run with an error naming the cap, and the previous index stays.
They are what bounds a session's memory: every stream holds every chunk (SPEC §3).
``max_depth`` bounds directory nesting below the root (deeper directories are skipped and
reported). The two ignore-file caps make a directory whose ignore file exceeds them skipped
whole (the safe side: nothing it might have excluded gets indexed).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ragls.errors import InvalidArgumentError

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    max_file_bytes: int = 16 * MIB
    max_files: int = 100_000
    max_total_bytes: int = 1024 * MIB
    max_chunks_per_file: int = 2_000
    max_chunks: int = 2_000_000
    max_depth: int = 64
    max_ignore_file_bytes: int = 64 * 1024
    max_ignore_selectors: int = 1_024

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"Limits.{spec.name} must be a positive integer")

    @classmethod
    def defaults(cls) -> Limits:
        return _DEFAULTS


_DEFAULTS = Limits()

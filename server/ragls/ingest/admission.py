"""Admission: which paths below a root may be ingested, and why the others are not (SPEC §8).

One decision procedure serves every route into ingestion — the walk, a watcher event, an explicit
path, an include glob — so they can never disagree. Order of the checks, for a file:
the nine always-skipped names as any path component, secret names, the ignore files themselves,
the ignore stack (git's semantics), then include/exclude. Directories: the nine names, the ten
re-admittable names unless configuration re-admits them, the ignore stack, the depth cap, and
directories whose ignore file was refused.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from pathlib import Path

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ignore.defaults import (
    ALWAYS_SKIPPED_DIRS,
    READMITTABLE_DIRS,
    always_skipped_prefix,
    is_ignore_file_name,
    is_secret_path,
)
from ragls.ingest.ignore.rules import Match
from ragls.ingest.ignore.stack import IgnoreStack
from ragls.ingest.limits import Limits


class SkipReason(enum.Enum):
    """Why a path was not ingested; the values are what status reports."""

    IGNORED = "ignored"
    DEFAULT_SKIP = "default-skip"
    SECRET = "secret"
    EXCLUDED = "excluded"
    SYMLINK = "symlink"
    SPECIAL = "special-file"
    TOO_DEEP = "too-deep"
    IGNORE_FILE_REFUSED = "ignore-file-refused"
    BINARY = "binary"
    TOO_LARGE = "too-large"
    TOO_MANY_CHUNKS = "too-many-chunks"
    UNREADABLE = "unreadable"
    EXTRACT_FAILED = "extract-failed"
    UNSUPPORTED = "unsupported-format"
    UNSAFE_NAME = "unsafe-name"


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path that was not ingested, with the reason and, where useful, a detail."""

    path: str
    reason: SkipReason
    detail: str = ""


# A newline or escape in a path would split `ragls files` lines, chunk ids and editor lists.
_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")
UNSAFE_NAME_DETAIL = "a control character (newline, tab, escape) in its name"


def has_control_character(name: str) -> bool:
    return _CONTROL_CHARACTER.search(name) is not None


class Admission:
    """Decides admission below ``config.path``; caches the ignore rules it reads."""

    def __init__(self, config: KnowledgeSourceConfig, limits: Limits) -> None:
        self.config = config
        self.limits = limits
        self.root: Path = config.path
        self.stack = IgnoreStack(self.root, limits)

    def directory_verdict(self, relative: str) -> Skipped | None:
        """Why the directory at ``relative`` is not walked, or None; its parent is admitted."""
        name = relative.rsplit("/", 1)[-1]
        if has_control_character(name):
            return Skipped(relative, SkipReason.UNSAFE_NAME, UNSAFE_NAME_DETAIL)
        lowered = name.lower()
        if lowered in ALWAYS_SKIPPED_DIRS:
            return Skipped(relative, SkipReason.DEFAULT_SKIP)
        if lowered in READMITTABLE_DIRS and not self.config.readmits(name):
            return Skipped(relative, SkipReason.DEFAULT_SKIP)
        decision, origin = self.stack.explain(relative, is_dir=True)
        if decision is Match.IGNORE:
            return Skipped(relative, SkipReason.IGNORED, origin or "")
        if self.config.excludes_directory(relative):
            return Skipped(relative, SkipReason.EXCLUDED)
        if relative.count("/") + 1 > self.limits.max_depth:
            return Skipped(relative, SkipReason.TOO_DEEP)
        refused = self.stack.rules_for(relative).refused
        if refused is not None:
            return Skipped(relative, SkipReason.IGNORE_FILE_REFUSED, refused)
        return None

    def file_verdict(self, relative: str) -> Skipped | None:
        """Why the regular file at ``relative`` is not a candidate, or None (None also for the
        ignore files, which :meth:`is_ignore_file` tells apart); its parent is admitted."""
        if has_control_character(relative):
            return Skipped(relative, SkipReason.UNSAFE_NAME, UNSAFE_NAME_DETAIL)
        skipped_at = always_skipped_prefix(relative)
        if skipped_at is not None:  # the skipped directory above the file, or the file itself
            return Skipped(skipped_at, SkipReason.DEFAULT_SKIP)
        if is_secret_path(relative) or self.config.names_secret(relative):
            return Skipped(relative, SkipReason.SECRET)
        decision, origin = self.stack.explain(relative, is_dir=False)
        if decision is Match.IGNORE:
            return Skipped(relative, SkipReason.IGNORED, origin or "")
        if not self.config.selects(relative):
            return Skipped(relative, SkipReason.EXCLUDED)
        return None

    @staticmethod
    def is_ignore_file(relative: str) -> bool:
        return is_ignore_file_name(relative.rsplit("/", 1)[-1])

    def directory_path_verdict(self, relative: str) -> Skipped | None:
        """The full check for a directory path, each ancestor and itself, without walking."""
        if relative and (relative.startswith("/") or ".." in relative.split("/")):
            return Skipped(relative, SkipReason.EXCLUDED, "outside the indexed root")
        refused = self.stack.rules_for("").refused
        if refused is not None:
            return Skipped("", SkipReason.IGNORE_FILE_REFUSED, refused)
        if not relative:
            return None
        parts = relative.split("/")
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
            if (self.root / directory).is_symlink():
                return Skipped(directory, SkipReason.SYMLINK)
            verdict = self.directory_verdict(directory)
            if verdict is not None:
                return verdict
        return None

    def path_verdict(self, relative: str) -> Skipped | None:
        """The full check for one file path, ancestors included, without walking the tree.

        This is what a watcher event or an explicit path goes through. Symbolic links among the
        ancestors are refused as the walk would refuse them.
        """
        if not relative or relative.startswith("/") or ".." in relative.split("/"):
            return Skipped(relative, SkipReason.EXCLUDED, "outside the indexed root")
        skipped_at = always_skipped_prefix(relative)
        if skipped_at is not None:
            return Skipped(skipped_at, SkipReason.DEFAULT_SKIP)
        verdict = self.directory_path_verdict(relative.rpartition("/")[0])
        if verdict is not None:
            return verdict
        if self.is_ignore_file(relative):
            return Skipped(relative, SkipReason.EXCLUDED, "ignore files are never ingested")
        return self.file_verdict(relative)

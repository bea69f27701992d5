"""The per-directory ignore stack: git's precedence across nested ignore files (SPEC §8).

Each directory may hold ``.gitignore`` and then ``.tnsignore``, read as one list (the latter's
lines appended), anchored at that directory. For a path, the lists of its ancestor directories are
consulted from the deepest up; the first list with a matching pattern decides, and within a list
the last matching pattern wins. The walk prunes excluded directories, so a file inside one is
never re-included and an ignore file inside one is never read.

Loading is lazy and cached per directory. An ignore file that is a symbolic link is not read
(``symlinked_ignore_files``). One over the size or selector cap, or unreadable, makes its
directory *refused*: the caller skips that directory whole rather than index it half-filtered.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ragls.ingest.ignore.defaults import IGNORE_FILE_NAMES
from ragls.ingest.ignore.rules import IgnoreFile, Match, count_selectors
from ragls.ingest.limits import Limits


@dataclass(frozen=True, slots=True)
class DirectoryRules:
    """The ignore rules of one directory, or why the directory is refused."""

    rules: IgnoreFile | None = None
    refused: str | None = None
    symlinked: tuple[str, ...] = ()


@dataclass
class IgnoreStack:
    root: Path
    limits: Limits
    _cache: dict[str, DirectoryRules] = field(default_factory=dict)

    def rules_for(self, directory: str) -> DirectoryRules:
        """Rules of the directory at POSIX ``directory`` below the root ("" for the root)."""
        cached = self._cache.get(directory)
        if cached is None:
            cached = self._load(directory)
            self._cache[directory] = cached
        return cached

    def forget(self, directory: str) -> None:
        """Drop the cached rules of ``directory`` (its ignore file changed)."""
        self._cache.pop(directory, None)

    def forget_all(self) -> None:
        self._cache.clear()

    def match(self, relative: str, is_dir: bool) -> Match:
        """The decision of the stack for ``relative``; ancestors are assumed not excluded."""
        return self.explain(relative, is_dir)[0]

    def explain(self, relative: str, is_dir: bool) -> tuple[Match, str | None]:
        """The decision for ``relative`` and the line that made it (``dir/.gitignore:3: build/``),
        deeper files first, the last matching line of a file winning (git's precedence)."""
        encoded = os.fsencode(relative)
        parts = relative.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            directory = "/".join(parts[:depth])
            rules = self.rules_for(directory).rules
            if rules is None or not len(rules):
                continue
            below = encoded if not directory else encoded[len(os.fsencode(directory)) + 1 :]
            pattern = rules.deciding(below, is_dir)
            if pattern is not None:
                decision = Match.WHITELIST if pattern.negated else Match.IGNORE
                return decision, rules.origin(pattern)
        return Match.NONE, None

    def _load(self, directory: str) -> DirectoryRules:
        contents: list[bytes] = []
        labels: list[str] = []
        symlinked: list[str] = []
        base = self.root / directory if directory else self.root
        for name in IGNORE_FILE_NAMES:
            path = base / name
            label = f"{directory}/{name}" if directory else name
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue
            except OSError as error:
                return DirectoryRules(refused=f"{label} cannot be read: {error.strerror}")
            if stat.S_ISLNK(info.st_mode):
                symlinked.append(label)
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if info.st_size > self.limits.max_ignore_file_bytes:
                return DirectoryRules(
                    refused=f"{label} is {info.st_size} bytes, over the "
                    f"{self.limits.max_ignore_file_bytes}-byte cap for ignore files"
                )
            try:
                content = _read_no_follow(path)
            except OSError as error:
                return DirectoryRules(refused=f"{label} cannot be read: {error.strerror}")
            if len(content) > self.limits.max_ignore_file_bytes:
                return DirectoryRules(refused=f"{label} grew over the ignore-file cap")
            selectors = count_selectors(content)
            if selectors > self.limits.max_ignore_selectors:
                return DirectoryRules(
                    refused=f"{label} has {selectors} selectors, over the "
                    f"{self.limits.max_ignore_selectors}-selector cap"
                )
            contents.append(content)
            labels.append(label)
        rules = IgnoreFile.parse(*contents, labels=tuple(labels))
        return DirectoryRules(rules=rules, symlinked=tuple(symlinked))


def _read_no_follow(path: Path) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)

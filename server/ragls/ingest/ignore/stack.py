"""The per-directory ignore stack: git's precedence across nested ignore files (SPEC §8).

Each directory may hold ``.gitignore`` and then ``.tnsignore``, read as one list (the latter's
lines appended), anchored at that directory. For a path, the lists of its ancestor directories are
consulted from the deepest up; the first list with a matching pattern decides, and within a list
the last matching pattern wins. The walk prunes excluded directories, so a file inside one is
never re-included and an ignore file inside one is never read.

Below every directory's lists come the files git reads for the whole work tree, as
``git ls-files --exclude-standard`` does, when the root is a work tree's top (it holds ``.git``,
a folder, or a file naming one as worktrees and submodules have): the repository's
``info/exclude`` (where people list their private files, never shared), then the user's global
ignore file at git's default place (``$XDG_CONFIG_HOME/git/ignore``, else
``~/.config/git/ignore``). Their patterns are anchored at the root. A ``core.excludesFile`` set
to another path in git's configuration is not read (``.tnsignore`` holds such rules instead).

Loading is lazy and cached per directory. An ignore file that is a symbolic link is not read
(``symlinked_ignore_files``). One over the size or selector cap, or unreadable, makes its
directory *refused*: the caller skips that directory whole rather than index it half-filtered
(for the whole-tree files, the root).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
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
    # The root only: the whole work tree's files (info/exclude, the global ignore), consulted
    # after every directory's own list.
    excludes: IgnoreFile | None = None


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
        for rules, below in self._lists_for(relative):
            pattern = rules.deciding(below, is_dir)
            if pattern is not None:
                decision = Match.WHITELIST if pattern.negated else Match.IGNORE
                return decision, rules.origin(pattern)
        return Match.NONE, None

    def _lists_for(self, relative: str) -> Iterator[tuple[IgnoreFile, bytes]]:
        """The ignore lists that may decide ``relative``, in git's precedence (its directories'
        from the deepest up, then the whole work tree's), each with the path as it reads it."""
        encoded = os.fsencode(relative)
        parts = relative.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            directory = "/".join(parts[:depth])
            rules = self.rules_for(directory).rules
            if rules is not None and len(rules):
                yield rules, encoded[len(os.fsencode(directory)) + 1 :] if directory else encoded
        excludes = self.rules_for("").excludes
        if excludes is not None:
            yield excludes, encoded

    def _load(self, directory: str) -> DirectoryRules:
        symlinked: list[str] = []
        base = self.root / directory if directory else self.root
        own = [
            (base / name, f"{directory}/{name}" if directory else name)
            for name in IGNORE_FILE_NAMES
        ]
        rules = self._read_all(own, symlinked)
        if isinstance(rules, DirectoryRules):
            return rules
        excludes: IgnoreFile | None = None
        if not directory:
            found = self._read_all(work_tree_excludes(self.root), symlinked)
            if isinstance(found, DirectoryRules):
                return found
            excludes = found if len(found) else None
        return DirectoryRules(rules=rules, symlinked=tuple(symlinked), excludes=excludes)

    def _read_all(
        self, files: list[tuple[Path, str]], symlinked: list[str]
    ) -> IgnoreFile | DirectoryRules:
        """The patterns of ``files`` ((path, label), read in order), or the refusal of the
        first that cannot be used."""
        contents: list[bytes] = []
        labels: list[str] = []
        for path, label in files:
            content = self._read(path, label, symlinked)
            if isinstance(content, DirectoryRules):
                return content
            if content is not None:
                contents.append(content)
                labels.append(label)
        return IgnoreFile.parse(*contents, labels=tuple(labels))

    def _read(self, path: Path, label: str, symlinked: list[str]) -> bytes | DirectoryRules | None:
        """An ignore file's content; None if there is none to read (missing, not a regular
        file, a symbolic link: then named in ``symlinked``); the refusal if it cannot be used."""
        try:
            info = path.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            return DirectoryRules(refused=f"{label} cannot be read: {error.strerror}")
        if stat.S_ISLNK(info.st_mode):
            symlinked.append(label)
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
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
        return content


def work_tree_excludes(root: Path) -> list[tuple[Path, str]]:
    """(path, label) of the whole work tree's ignore files when ``root`` is a work tree's top:
    the repository's ``info/exclude`` and git's default global ignore file; none otherwise."""
    git = root / ".git"
    common = git if git.is_dir() else _git_dir_of_file(git) if git.is_file() else None
    if common is None:
        return []
    found = [(common / "info" / "exclude", ".git/info/exclude")]
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    if os.path.isabs(config):
        global_ignore = Path(config) / "git" / "ignore"
        found.append((global_ignore, str(global_ignore)))
    return found


def _git_dir_of_file(git: Path) -> Path | None:
    """The common git directory a ``.git`` file points at (``gitdir: PATH``; a worktree's
    ``commondir`` followed), or None if it says nothing readable."""
    try:
        first = git.read_bytes()[:4096].decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:") or not first[0][7:].strip():
        return None
    gitdir = git.parent / first[0][7:].strip()  # an absolute path replaces the parent
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return gitdir
    return gitdir / common if common else gitdir


def _read_no_follow(path: Path) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)

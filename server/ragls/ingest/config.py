"""KnowledgeSourceConfig: what to index and how (SPEC §8).

``include`` and ``exclude`` are gitignore-style globs relative to the source root, compiled with
pathspec's ``GitIgnoreSpec``, and run before the format check: with ``include`` given, a file must
match one of them; a file matching ``exclude`` is dropped. ``format`` forces one DocumentFormat
for every file (AUTO detects per file). ``default_skips`` lists which of the ten re-admittable
default directories stay skipped (all ten unless configured); an include glob naming one of them
as a literal path segment (``build/**/*.txt``) re-admits it too. The nine always-skipped names and
the secret names cannot be re-admitted by anything.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from ragls.errors import InvalidArgumentError
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.ignore.defaults import READMITTABLE_DIRS
from ragls.ingest.secret_rules import RULES_VERSION

MAX_GLOBS = 1_024


def _globs(name: str, values: Iterable[str]) -> tuple[str, ...]:
    if isinstance(values, str):
        raise InvalidArgumentError(f"{name} must be a list of glob strings, not one string")
    checked = tuple(values)
    if len(checked) > MAX_GLOBS:
        raise InvalidArgumentError(f"{name} has {len(checked)} globs; the maximum is {MAX_GLOBS}")
    for glob in checked:
        if not isinstance(glob, str) or not glob.strip():
            raise InvalidArgumentError(f"{name} entries must be non-empty strings, got {glob!r}")
    return checked


@dataclass(frozen=True, slots=True)
class KnowledgeSourceConfig:
    path: Path
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    format: DocumentFormat = DocumentFormat.AUTO
    default_skips: frozenset[str] = READMITTABLE_DIRS
    # Mask secrets found inside files before indexing (ragls.ingest.secrets); off only for a
    # folder known to be clean.
    detect_secrets: bool = True
    # More secret file names (fnmatch patterns over the lower-cased name, or over the path when
    # they hold a "/"): added to the built-in ones, which nothing removes.
    secret_names: tuple[str, ...] = ()
    _include_spec: pathspec.GitIgnoreSpec | None = field(default=None, repr=False, compare=False)
    _exclude_spec: pathspec.GitIgnoreSpec | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.path, str | Path):
            raise InvalidArgumentError("path must be a filesystem path")
        object.__setattr__(self, "path", Path(self.path))
        object.__setattr__(self, "include", _globs("include", self.include))
        object.__setattr__(self, "exclude", _globs("exclude", self.exclude))
        if not isinstance(self.format, DocumentFormat):
            raise InvalidArgumentError(f"format must be a DocumentFormat, got {self.format!r}")
        skips = frozenset(name.lower() for name in self.default_skips)
        unknown = sorted(skips - READMITTABLE_DIRS)
        if unknown:
            raise InvalidArgumentError(
                f"default_skips may only name {sorted(READMITTABLE_DIRS)}; got {unknown}"
            )
        object.__setattr__(self, "default_skips", skips)
        try:
            include = pathspec.GitIgnoreSpec.from_lines(self.include) if self.include else None
            exclude = pathspec.GitIgnoreSpec.from_lines(self.exclude) if self.exclude else None
        except Exception as error:
            raise InvalidArgumentError(f"invalid include/exclude glob: {error}") from error
        object.__setattr__(self, "_include_spec", include)
        object.__setattr__(self, "_exclude_spec", exclude)

    def __reduce__(self) -> tuple[type[KnowledgeSourceConfig], tuple[object, ...]]:
        # The compiled glob specs are rebuilt from the globs (worker processes receive configs).
        return (
            KnowledgeSourceConfig,
            (self.path, self.include, self.exclude, self.format, self.default_skips),
        )

    def selects(self, relative: str) -> bool:
        """Whether include/exclude admit the file at ``relative`` (POSIX, below the root)."""
        if self._include_spec is not None and not self._include_spec.match_file(relative):
            return False
        return self._exclude_spec is None or not self._exclude_spec.match_file(relative)

    def excludes_directory(self, relative: str) -> bool:
        """Whether an exclude glob matches the directory at ``relative`` itself, so that the
        walk prunes it (everything below would be excluded anyway, as in git)."""
        return self._exclude_spec is not None and self._exclude_spec.match_file(f"{relative}/")

    def names_secret(self, relative: str) -> bool:
        """Whether a configured secret-name pattern matches the file at ``relative``."""
        lowered = relative.lower()
        name = lowered.rsplit("/", 1)[-1]
        return any(
            fnmatch.fnmatchcase(lowered if "/" in pattern else name, pattern.lower())
            for pattern in self.secret_names
        )

    def readmits(self, directory_name: str) -> bool:
        """Whether a re-admittable default directory of this name is walked."""
        lowered = directory_name.lower()
        if lowered not in self.default_skips:
            return True
        return any(
            lowered in (segment.lower() for segment in glob.split("/")) for glob in self.include
        )

    def selector_key(self) -> str:
        """A digest of everything here that changes which files are read and how."""
        text = "\0".join(
            [
                "include",
                *self.include,
                "exclude",
                *self.exclude,
                "format",
                self.format.value,
                "skips",
                *sorted(self.default_skips),
                f"secrets-{RULES_VERSION}" if self.detect_secrets else "secrets-off",
                "secret-names",
                *self.secret_names,
            ]
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def relative_path(root: Path, raw: str | os.PathLike[str]) -> str | None:
    """``raw`` (absolute, or relative to ``root``) as a POSIX path below ``root`` ("" for the
    root itself), or None if it lies outside."""
    path = Path(raw)
    if not path.is_absolute():
        path = root / path
    try:
        relative = Path(os.path.normpath(path)).relative_to(root).as_posix()
    except ValueError:
        return None
    return "" if relative == "." else relative

"""One ignore file's patterns and git's matching of them (SPEC §8).

Parsing follows git's ``dir.c``: the buffer is split on LF only (one CR right before the LF is
dropped, any other CR stays part of the line); a UTF-8 BOM at the start is skipped; ``#`` starts
a comment; trailing spaces are removed unless escaped with a backslash; a leading ``!`` negates;
one trailing ``/`` makes the pattern match directories only; a pattern with no other ``/``
matches the basename at any depth, otherwise it is anchored at the directory holding the file (a
leading ``/`` is dropped). Within one file the last matching pattern wins
(:meth:`IgnoreFile.match`); precedence between files is the stack's business
(``ragls.ingest.ignore.stack``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from ragls.ingest.ignore.wildmatch import compile_wildmatch

_BOM = b"\xef\xbb\xbf"


class Match(enum.Enum):
    """The three-state result of matching a path: nothing said, ignored, or re-included."""

    NONE = 0
    IGNORE = 1
    WHITELIST = 2


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    """One compiled line of an ignore file."""

    source: bytes
    line: int
    negated: bool
    directory_only: bool
    basename_only: bool
    regex: re.Pattern[bytes]

    def matches(self, relative: bytes, basename: bytes, is_dir: bool) -> bool:
        if self.directory_only and not is_dir:
            return False
        return self.regex.match(basename if self.basename_only else relative) is not None


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's trim_trailing_spaces: drop unescaped trailing spaces (not tabs)."""
    last_space: int | None = None
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == 0x20:
            if last_space is None:
                last_space = i
        elif ch == 0x5C:  # backslash: the next byte is escaped
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def parse_pattern(raw: bytes, line: int) -> IgnorePattern | None:
    """The pattern of one line, or None for blanks and comments."""
    if not raw or raw.startswith(b"#"):
        return None
    text = _trim_trailing_spaces(raw)
    if not text:
        return None
    negated = text.startswith(b"!")
    if negated:
        text = text[1:]
    directory_only = text.endswith(b"/")
    if directory_only:
        text = text[:-1]
    basename_only = b"/" not in text
    if not basename_only and text.startswith(b"/"):
        text = text[1:]
    return IgnorePattern(
        source=raw,
        line=line,
        negated=negated,
        directory_only=directory_only,
        basename_only=basename_only,
        regex=compile_wildmatch(text) if text else re.compile(rb"(?!)"),
    )


def selector_lines(content: bytes) -> list[tuple[int, bytes]]:
    """(line number, raw line) for every LF-separated line, BOM skipped.

    Lines are split on LF only; as git does, one CR right before the LF (or before the end of
    the file) is dropped, and any other CR stays part of the pattern.
    """
    if content.startswith(_BOM):
        content = content[len(_BOM) :]
    lines = content.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [
        (number, line[:-1] if line.endswith(b"\r") else line)
        for number, line in enumerate(lines, start=1)
    ]


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The patterns of the ignore files of one directory, in order (``.gitignore`` first)."""

    patterns: tuple[IgnorePattern, ...]

    origins: tuple[str, ...] = ()  # the file each pattern came from, as labels

    @classmethod
    def parse(cls, *contents: bytes, labels: tuple[str, ...] = ()) -> IgnoreFile:
        """The patterns of ``contents`` in order; ``labels`` name their files (for reports)."""
        patterns = []
        origins = []
        for position, content in enumerate(contents):
            label = labels[position] if position < len(labels) else ""
            for number, raw in selector_lines(content):
                pattern = parse_pattern(raw, number)
                if pattern is not None:
                    patterns.append(pattern)
                    origins.append(label)
        return cls(tuple(patterns), tuple(origins))

    def match(self, relative: bytes, is_dir: bool) -> Match:
        """``relative`` is the path below this file's directory, ``/``-separated, as bytes."""
        found = self.deciding(relative, is_dir)
        if found is None:
            return Match.NONE
        return Match.WHITELIST if found.negated else Match.IGNORE

    def deciding(self, relative: bytes, is_dir: bool) -> IgnorePattern | None:
        """The pattern that decides ``relative`` (the last one matching), or None."""
        basename = relative.rsplit(b"/", 1)[-1]
        for pattern in reversed(self.patterns):
            if pattern.matches(relative, basename, is_dir):
                return pattern
        return None

    def origin(self, pattern: IgnorePattern) -> str:
        """``FILE:LINE: PATTERN`` of one of this file's patterns (as ``git check-ignore -v``)."""
        # By identity: the same line can stand in .gitignore and .tnsignore.
        position = next(i for i, candidate in enumerate(self.patterns) if candidate is pattern)
        label = self.origins[position] if position < len(self.origins) else "?"
        return f"{label}:{pattern.line}: {pattern.source.decode('utf-8', 'replace')}"

    def __len__(self) -> int:
        return len(self.patterns)


def count_selectors(content: bytes) -> int:
    """How many lines of ``content`` are patterns (not blank, not comments)."""
    return sum(1 for number, raw in selector_lines(content) if parse_pattern(raw, number))

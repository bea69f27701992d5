"""Text normalisation before chunking (SPEC §8): BOM stripped, CRLF and CR to LF, NFC, control
characters other than tab and newline removed, and over-long lines cut.

Lines longer than ``max_line_chars`` (minified code, embedded blobs) are cut at that length: the
rest of such a line carries no retrievable meaning and would otherwise make one line a chunk of
unbounded size. How many lines were cut is returned so it can be reported.
"""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
DEFAULT_MAX_LINE_CHARS = 2_000


def normalize_text(text: str, max_line_chars: int = DEFAULT_MAX_LINE_CHARS) -> tuple[str, int]:
    """The normalised text and the number of lines that were cut."""
    return cut_long_lines(clean_text(text), max_line_chars)


def clean_text(text: str) -> str:
    """``text`` normalised but for the cut: what a parser reads (a line cut in the middle of a
    string literal would leave the string open and the rest of the file unparsed)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return _CONTROL.sub("", text)


def cut_long_lines(text: str, max_line_chars: int = DEFAULT_MAX_LINE_CHARS) -> tuple[str, int]:
    """``text`` (cleaned) with its lines cut at ``max_line_chars``, and how many were cut. The
    cut text has the same lines as ``text``, each a prefix of its own."""
    cut = 0
    if len(text) > max_line_chars:
        lines = text.split("\n")
        for index, line in enumerate(lines):
            if len(line) > max_line_chars:
                lines[index] = line[:max_line_chars]
                cut += 1
        if cut:
            text = "\n".join(lines)
    return text, cut

"""Structural units of non-code text (SPEC §8): Markdown heading sections and text paragraphs."""

from __future__ import annotations

import re

from ragls.ingest.chunking.symbols import Unit

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def markdown_units(lines: list[str]) -> list[Unit]:
    """One unit per heading section (a heading and the lines up to the next heading), named by
    the heading path (``Install > Linux``); the text before the first heading is unnamed.
    Headings inside fenced code blocks do not count."""
    units: list[Unit] = []
    path: list[tuple[int, str]] = []
    start, symbol = 0, ""
    fence: str | None = None
    for index, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        heading = _ATX_HEADING.match(line)
        if heading is None:
            continue
        if index > start:
            units.append(Unit(start, index - 1, symbol, "section" if symbol else ""))
        level = len(heading.group(1))
        path = [(lvl, title) for lvl, title in path if lvl < level] + [(level, heading.group(2))]
        start, symbol = index, " > ".join(title for _, title in path)
    if start < len(lines):
        units.append(Unit(start, len(lines) - 1, symbol, "section" if symbol else ""))
    return units


def paragraph_units(lines: list[str]) -> list[Unit]:
    """One unit per run of non-blank lines; the blank lines stay with the paragraph before them."""
    units: list[Unit] = []
    start: int | None = None
    for index, line in enumerate(lines):
        blank = not line.strip()
        if start is None:
            if not blank:
                start = index
        elif blank and index + 1 < len(lines) and lines[index + 1].strip():
            units.append(Unit(start, index))
            start = None
    if start is not None:
        units.append(Unit(start, len(lines) - 1))
    return units

"""Secrets inside ordinary files, masked before anything is indexed (SPEC §8; docs/security.md).

:func:`redact` replaces each value a rule of :mod:`ragls.ingest.secret_rules` finds with a marker,
``redacted:RULE`` between single guillemets, and returns the counts by rule. The replacement
keeps the text's line breaks
(a masked PEM block becomes the marker followed by as many newlines as the block had), so the
line numbers of every later chunk stay right. The masked value is never stored, searched or
returned: redaction happens on the extracted text before chunking, and again on each chunk's
text (for formats whose chunks come from blocks, such as notebook cells and PDF pages).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ragls.core.documents import Document
from ragls.ingest.secret_rules import (
    ASSIGNED_NAME,
    ENTROPY_CHECKED,
    MIN_ENTROPY_BITS,
    PLACEHOLDER_WORDS,
    RULES,
    SECRET_NAME_ENDING,
)

MARKER_PREFIX = "\u2039redacted:"  # single guillemets: a marker no code writes


def marker(rule: str) -> str:
    return f"{MARKER_PREFIX}{rule}\u203a"


def entropy_bits(value: str) -> float:
    """Shannon entropy of ``value``'s characters, in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def looks_random(value: str) -> bool:
    lowered = value.lower()
    if any(word in lowered for word in PLACEHOLDER_WORDS):
        return False
    if "${" in value or "{{" in value or value.startswith(("%", "$", "<")):
        return False  # a template or an environment reference, not a value
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and entropy_bits(value) >= MIN_ENTROPY_BITS


def _assigned_to_a_secret_name(match: Any) -> bool:
    text: str = match.string
    start: int = match.start()
    named = ASSIGNED_NAME.search(text, max(0, start - 80), start)
    return named is not None and SECRET_NAME_ENDING.search(named.group(1)) is not None


def redact(text: str) -> tuple[str, Counter[str]]:
    """``text`` with every detected secret masked, and how many of each rule were masked."""
    found: Counter[str] = Counter()
    if not text:
        return text, found
    for name, pattern, group, hints in RULES:
        if not any(hint in text for hint in hints):
            continue

        def replace(match: object, name: str = name, group: int = group) -> str:
            matched = match  # a re.Match
            whole: str = matched.group(0)  # type: ignore[attr-defined]
            value: str = matched.group(group)  # type: ignore[attr-defined]
            if name in ENTROPY_CHECKED and not (
                looks_random(value) and _assigned_to_a_secret_name(matched)
            ):
                return whole
            found[name] += 1
            masked = marker(name) + "\n" * value.count("\n")
            start = matched.start(group) - matched.start(0)  # type: ignore[attr-defined]
            return whole[:start] + masked + whole[start + len(value) :]

        text = pattern.sub(replace, text)
    return text, found


def markers_in(documents: Iterable[Document]) -> Counter[str]:
    """How many masked values ``documents`` hold, by rule (what status reports)."""
    found: Counter[str] = Counter()
    for document in documents:
        content = document.content
        if MARKER_PREFIX not in content:
            continue
        for rule in MARKER_RULE.findall(content):
            found[rule] += 1
    return found


MARKER_RULE = re.compile(re.escape(MARKER_PREFIX) + "([a-z0-9-]+)\u203a")

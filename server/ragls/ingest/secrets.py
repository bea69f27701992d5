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

from ragls.core.documents import Document
from ragls.ingest.secret_rules import (
    CONFIG_SUFFIXES,
    KUBERNETES_DATA,
    KUBERNETES_ENTRY,
    KUBERNETES_SECRET,
    MIN_ENTROPY_BITS,
    MIN_HEX_ENTROPY_BITS,
    MIN_LITERAL_CHARS,
    NAME_CHARACTERS,
    NON_SECRET_LITERALS,
    PLACEHOLDER_WORDS,
    REFERENCE_PARTS,
    REFERENCE_STARTS,
    RULES,
    SECRET_NAME_ENDING,
    Rule,
)

HEX_DIGITS = frozenset("0123456789abcdef")
MARKER_PREFIX = "\u2039redacted:"  # single guillemets: a marker no code writes


def marker(rule: str) -> str:
    return f"{MARKER_PREFIX}{rule}\u203a"


def entropy_bits(value: str) -> float:
    """Shannon entropy of ``value``'s characters, in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def is_literal(value: str) -> bool:
    """A value a person chose, not a placeholder, a reference to one, or a flag."""
    lowered = value.lower()
    if len(value) < MIN_LITERAL_CHARS or lowered in NON_SECRET_LITERALS:
        return False
    if any(word in lowered for word in PLACEHOLDER_WORDS):
        return False
    if value.startswith(REFERENCE_STARTS) or any(part in lowered for part in REFERENCE_PARTS):
        return False
    return len(set(value)) > 2  # not "aaaaaa" or "******"


def looks_random(value: str) -> bool:
    if not is_literal(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    hexadecimal = all(c in HEX_DIGITS for c in value.lower())
    needed = MIN_HEX_ENTROPY_BITS if hexadecimal else MIN_ENTROPY_BITS
    return has_digit and has_alpha and entropy_bits(value) >= needed


def is_config_file(path: str) -> bool:
    """Whether ``path`` names a configuration file, whose values are unquoted and unrandom."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(CONFIG_SUFFIXES) or name == "dockerfile"


def _assigned_to_a_secret_name(match: re.Match[str], group: int) -> bool:
    """Whether the value of ``group`` is assigned (``=``, ``=>``, ``:``) to a secret's name.
    String operations rather than a regex anchored at the end: this runs for every quoted
    value of every file."""
    start = match.start(group)
    head = match.string[max(0, start - 80) : start].rstrip(" \t\"'")
    if head.endswith("=>"):
        head = head[:-2]
    elif head.endswith(("=", ":")):
        head = head[:-1]
    else:
        return False
    head = head.rstrip(" \t\"'")
    cut = len(head)
    while cut > 0 and head[cut - 1] in NAME_CHARACTERS:
        cut -= 1
    name = head[cut:]
    return bool(name) and SECRET_NAME_ENDING.search(name) is not None


def _passes(rule: Rule, match: re.Match[str], value: str, config: bool) -> bool:
    if rule.check == "none":
        return True
    if rule.check == "literal":
        return is_literal(value)
    if rule.check == "url":
        return is_literal(value) and value != match.group(1)
    if rule.check == "random":
        return looks_random(value)
    if not _assigned_to_a_secret_name(match, rule.group):
        return False
    return is_literal(value) if config else looks_random(value)


def redact(text: str, path: str = "") -> tuple[str, Counter[str]]:
    """``text`` with every detected secret masked, and how many of each rule were masked.

    ``path`` (the file's name or path, when there is one) selects the lenient checks of
    configuration files; the masked text keeps every line break, so line numbers stay right.
    """
    found: Counter[str] = Counter()
    if not text:
        return text, found
    config = is_config_file(path) if path else False
    for rule in RULES:
        if rule.config_only and not config:
            continue
        if rule.hints and not any(hint in text for hint in rule.hints):
            continue

        def replace(match: re.Match[str], rule: Rule = rule) -> str:
            whole = match.group(0)
            value = match.group(rule.group)
            if not _passes(rule, match, value, config):
                return whole
            found[rule.name] += 1
            masked = marker(rule.name) + "\n" * value.count("\n")
            start = match.start(rule.group) - match.start(0)
            return whole[:start] + masked + whole[start + len(value) :]

        text = rule.pattern.sub(replace, text)
    if "Secret" in text and KUBERNETES_SECRET.search(text):
        text = _mask_kubernetes_data(text, found)
    return text, found


def _mask_kubernetes_data(text: str, found: Counter[str]) -> str:
    """Every value of a Secret manifest's ``data:``/``stringData:`` mapping (base64 is no cover)."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        heading = KUBERNETES_DATA.match(lines[index])
        index += 1
        if heading is None:
            continue
        indent = len(heading.group(1))
        while index < len(lines):
            entry = KUBERNETES_ENTRY.match(lines[index])
            if entry is None or len(entry.group(1)) <= indent:
                break
            value = entry.group(2)
            if value not in ("|", ">", "|-", ">-") and not value.startswith(MARKER_PREFIX):
                line = lines[index]
                at = entry.start(2)
                lines[index] = line[:at] + marker("kubernetes-secret") + line[at + len(value) :]
                found["kubernetes-secret"] += 1
            index += 1
    return "\n".join(lines)


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

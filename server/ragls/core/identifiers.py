"""The code-aware analyzer: identifiers split into sub-tokens (SPEC §10).

Code is searched by names, and names are compounds: ``zebracorn_frobnicator``,
``previousResultId``, ``HTTPServer2``. :func:`identifier_terms` turns one identifier into the
lowercased identifier itself (so an exact name stays the rarest, strongest match) followed by its
parts: split on ``_`` and ``-``, then at camelCase and PascalCase boundaries (an upper-case run
before a capitalised word is an acronym: ``HTTPServer`` is ``http`` + ``server``), and between
letters and digits. Every term then goes through SPEC §2 steps 1-3 as words do: one-character
terms and the 56 stop words are dropped, the suffix stemmer is applied. Queries are split the
same way, so ``previous result id`` finds ``previousResultId`` and ``frobnicator`` finds
``zebracorn_frobnicator``.

Kebab-case is split but not kept whole in text (``a-b`` in code is mostly a subtraction); in a
path every component is one identifier, so ``my-module.ts`` gives ``my_module``, ``my`` and
``module``. Non-ASCII letters separate, as in SPEC §2.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from ragls.core.analyzer import stem
from ragls.core.vocab import STOP_WORDS

IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
# Within one ``_``/``-`` separated part: an acronym (upper-case run not followed by lower case),
# a word (optional capital, lower case), or a number.
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_\-]+")
_ONE_PART = re.compile(r"[a-z]+|[0-9]+")
# File extensions say little a query would ask for; a path's stem and directories do.
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")


def _term(word: str) -> str | None:
    lowered = word.lower()
    if len(lowered) < 2 or lowered in STOP_WORDS:
        return None
    return stem(lowered)


def split_identifier(identifier: str) -> tuple[str, ...]:
    """The terms of one identifier: the whole (if it has several parts), then its parts."""
    if _ONE_PART.fullmatch(identifier):  # most identifiers are one lower-case word: no split
        term = _term(identifier)
        return () if term is None else (term,)
    parts: list[str] = []
    for piece in _SEPARATORS.split(identifier):
        parts.extend(_PART.findall(piece))
    terms = [term for part in parts if (term := _term(part)) is not None]
    if len(parts) > 1:
        whole = _term(identifier.strip("_-"))
        if whole is not None and whole not in terms:
            terms.insert(0, whole)
    return tuple(terms)


# Documents committed one at a time, chunks' symbols and queries go through this cache; a large
# commit splits each distinct identifier of the batch's texts once, with a cache of its own
# (ragls.core.code_stream.encode_documents). 4,096 entries: at 16,384, a cold index of the
# standard library left it full, 3.7 MB more of the index's memory, for 25% fewer misses
# (38,000 of 88,000 calls) among the symbols' identifiers, which are split in microseconds.
identifier_terms = lru_cache(maxsize=1 << 12)(split_identifier)


def code_term_counts(text: str) -> Counter[str]:
    """Counts of the code terms of ``text``: each identifier contributes its whole and parts.
    Identifiers are counted first (in C), then split once per distinct identifier."""
    counts: Counter[str] = Counter()
    for identifier, count in Counter(IDENTIFIER.findall(text)).items():
        for term in identifier_terms(identifier):
            counts[term] += count
    return counts


def code_terms(text: str) -> list[str]:
    """The code terms of ``text`` in order, repeats included."""
    return [
        term for identifier in IDENTIFIER.findall(text) for term in identifier_terms(identifier)
    ]


@lru_cache(maxsize=1 << 12)
def path_terms(path: str) -> tuple[str, ...]:
    """The terms of a POSIX path's directories and file stem (the extension left out); cached,
    since every chunk of a file has the same path."""
    components = [part for part in path.split("/") if part]
    if components:
        components[-1] = _EXTENSION.sub("", components[-1])
    terms: list[str] = []
    for component in components:
        for identifier in IDENTIFIER.findall(component.replace("-", "_")):
            terms.extend(identifier_terms(identifier))
    return tuple(terms)


def distinct(terms: Iterable[str]) -> list[str]:
    """Each term once, first seen first."""
    return list(dict.fromkeys(terms))

"""The text analyzer shared by BM25Stream and the TF-IDF knowledge base (SPEC §2).

Four pure steps: :func:`tokenize` (step 1), stop-word removal (step 2), :func:`stem` (step 3) and,
for queries only, synonym expansion through a :class:`SynonymTable` (step 4). :func:`analyze`
chains them. The tables are data in :mod:`ragls.core.vocab`; the synonym table can be replaced by
configuration (``SynonymTable.from_mapping``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ragls.core.vocab import (
    DEFAULT_SYNONYM_PAIRS,
    MIN_STEM_LENGTH,
    MIN_STEMMABLE_LENGTH,
    STEM_SUFFIXES,
    STOP_WORDS,
)
from ragls.errors import InvalidArgumentError

# Step 1 in one pass: after lowercasing, every run of [a-z0-9_] is a token; requiring two or more
# characters drops the one-character tokens. Everything else (non-ASCII letters included) separates.
_TOKEN = re.compile(r"[a-z0-9_]{2,}")


def tokenize(text: str) -> list[str]:
    """Step 1: lowercase, split on every character outside ``a-z 0-9 _``, drop 1-char tokens."""
    return _TOKEN.findall(text.lower())


def remove_stop_words(tokens: Iterable[str]) -> list[str]:
    """Step 2: drop the 56 stop words of SPEC §2."""
    return [token for token in tokens if token not in STOP_WORDS]


def stem_by_rule(token: str) -> str:
    """Step 3 as SPEC §2 words it: strip the first listed suffix that leaves at least two
    characters, once; tokens shorter than four characters are returned unchanged."""
    if len(token) < MIN_STEMMABLE_LENGTH:
        return token
    for suffix in STEM_SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= MIN_STEM_LENGTH:
            return token[: -len(suffix)]
    return token


def _check_suffix_order(suffixes: Sequence[str]) -> None:
    for position, suffix in enumerate(suffixes):
        for later in suffixes[position + 1 :]:
            if later.endswith(suffix):
                raise ValueError(f"suffix {later!r} must come before {suffix!r}")


# The first listed suffix that matches is always the longest one that matches (checked here), so
# one anchored regex with a lazy stem of at least two characters finds the same split in C.
_check_suffix_order(STEM_SUFFIXES)
_SUFFIX_ALTERNATIVES = "|".join(map(re.escape, STEM_SUFFIXES))
_STEM = re.compile(rf"(.{{{MIN_STEM_LENGTH},}}?)(?:{_SUFFIX_ALTERNATIVES})", re.DOTALL)


def stem_uncached(token: str) -> str:
    """Step 3 (:func:`stem_by_rule`), with one regex match instead of a loop of ``endswith``."""
    if len(token) < MIN_STEMMABLE_LENGTH:
        return token
    match = _STEM.fullmatch(token)
    return token if match is None else match.group(1)


# The common words are stemmed again and again; a cache entry costs about 100 bytes, so the
# cache stays small (a batch's whole vocabulary goes through stem_uncached instead).
stem = lru_cache(maxsize=1 << 12)(stem_uncached)


def index_terms(text: str) -> list[str]:
    """Steps 1-3: the terms a document (or a query before expansion) contributes, in order."""
    return [stem(token) for token in tokenize(text) if token not in STOP_WORDS]


def plain_term_counts(text: str) -> dict[str, int]:
    """Counts of the steps 1-2 terms of ``text`` (the TF-IDF knowledge base's terms).
    Every token is counted in C, then the stop words found are dropped (a handful of keys),
    rather than filtering each token in Python."""
    counts = Counter(_TOKEN.findall(text.lower()))
    for word in counts.keys() & STOP_WORDS:
        del counts[word]
    return counts


def term_counts(text: str) -> tuple[dict[str, int], dict[str, int], int]:
    """(counts of steps 1-2 terms, counts of steps 1-3 terms, number of terms) of ``text``.
    Stemming runs once per distinct token and counting in C (Counter), not once per token."""
    plain = plain_term_counts(text)
    stemmed: dict[str, int] = {}
    for token, count in plain.items():
        term = stem(token)
        stemmed[term] = stemmed.get(term, 0) + count
    return plain, stemmed, sum(plain.values())


def plain_terms(text: str) -> list[str]:
    """Steps 1-2 only (no stemming): the terms of the TF-IDF knowledge base (SPEC §4)."""
    return remove_stop_words(tokenize(text))


class SynonymTable:
    """Bidirectional synonym partners, matched on stems (SPEC §2 step 4).

    Each entry is passed through steps 1-3 when the table is built; an entry that analyzes to
    several terms contributes all of them, and one that analyzes to nothing (a stop word, a single
    character) is ignored. Partnership is not transitive: ``auth`` pairs with ``authentication``
    and with ``authorization``, but those two are not partners of each other.
    """

    __slots__ = ("_partners",)

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        partners: dict[str, list[str]] = {}
        for position, pair in enumerate(pairs):
            if (
                not isinstance(pair, Sequence)
                or isinstance(pair, str)
                or len(pair) != 2
                or not all(isinstance(word, str) for word in pair)
            ):
                raise InvalidArgumentError(
                    f"synonym pair {position} must be two strings, got {pair!r}"
                )
            left, right = (index_terms(word) for word in pair)
            for a in left:
                for b in right:
                    if a != b:
                        _add_partner(partners, a, b)
                        _add_partner(partners, b, a)
        self._partners: dict[str, tuple[str, ...]] = {
            term: tuple(found) for term, found in partners.items()
        }

    @classmethod
    def default(cls) -> SynonymTable:
        """The table of SPEC §2."""
        return _DEFAULT_TABLE

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Sequence[str]]) -> SynonymTable:
        """Build a table from configuration: ``{"word": ["partner", ...], ...}``."""
        if not isinstance(mapping, Mapping):
            raise InvalidArgumentError(
                "synonyms must be an object of word -> list of partners, "
                f"got {type(mapping).__name__}"
            )
        pairs: list[tuple[str, str]] = []
        for word, partners in mapping.items():
            if not isinstance(word, str):
                raise InvalidArgumentError(f"synonym key {word!r} must be a string")
            if isinstance(partners, str) or not isinstance(partners, Sequence):
                raise InvalidArgumentError(f"synonyms[{word!r}] must be a list of strings")
            for partner in partners:
                if not isinstance(partner, str):
                    raise InvalidArgumentError(
                        f"synonyms[{word!r}] must hold strings only, got {partner!r}"
                    )
                pairs.append((word, partner))
        return cls(pairs)

    def partners(self, term: str) -> tuple[str, ...]:
        """The stems paired with ``term`` (itself a stem), in table order."""
        return self._partners.get(term, ())

    def expand(self, terms: Iterable[str]) -> list[str]:
        """Each term followed by its partners; every distinct term kept once, first seen first."""
        expanded: dict[str, None] = {}
        for term in terms:
            expanded.setdefault(term)
            for partner in self._partners.get(term, ()):
                expanded.setdefault(partner)
        return list(expanded)

    def __len__(self) -> int:
        return len(self._partners)


def _add_partner(partners: dict[str, list[str]], term: str, partner: str) -> None:
    found = partners.setdefault(term, [])
    if partner not in found:
        found.append(partner)


_DEFAULT_TABLE = SynonymTable(DEFAULT_SYNONYM_PAIRS)


def analyze(text: str, *, query: bool = False, synonyms: SynonymTable | None = None) -> list[str]:
    """Analyze ``text`` as SPEC §2 says.

    Documents (``query=False``) yield every term in order, repeats included, since BM25 counts
    them. Queries yield each distinct term once, followed by its synonym partners (from
    ``synonyms``, the default table when omitted).
    """
    terms = index_terms(text)
    if not query:
        return terms
    table = _DEFAULT_TABLE if synonyms is None else synonyms
    return table.expand(terms)

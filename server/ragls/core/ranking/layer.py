"""The ranking layer: a second look at the fused candidates (SPEC §10; docs/retrieval.md).

Fusion ranks chunks by how well their words match; a developer asking a question also expects
the code that *defines* what they name before the code that uses it, source before tests, a
file that answers in several places before one that mentions a word once, and an exact phrase
or a word found nowhere else to win. :class:`RankingLayer` rescores the fused candidates with
these signals, each a factor with its own weight in :class:`RankingWeights` (0 turns it off,
which is how docs/retrieval.md's ablation table was measured):

* ``roles``: a chunk of a test, fixture, example, benchmark, generated, vendored, migration or
  documentation file is scaled by its role's weight (:mod:`ragls.core.ranking.rules`) to the
  power ``roles`` unless the query asks for that role;
* ``definition``: a chunk whose symbol is a name the query says (``Spec:normalize``,
  ``mergePath``, "the bootstrap function") gains ``1 + definition`` (half for a plain word);
* ``phrase``: the share of the query's word pairs found in the chunk's text, in order
  (an error message, a comment's words), gains ``1 + phrase * share``; a quoted string found
  verbatim gains ``1 + quoted``;
* ``rare``: a query word that at most :data:`RARE_DOCUMENTS` chunks contain (a unique name,
  a message's unusual word), when the chunk contains it, gains ``1 + rare``;
* ``coherence``: each chunk gains ``coherence`` times the scores of its file's two best other
  candidates (a file that answers in several places);
* ``diminishing``: the n-th chunk of one file (best first) is scaled by ``diminishing ** n``,
  so one large file does not fill the list.

The layer is pure: it sees the query, the candidates and a corpus statistic (how many chunks
hold a word), nothing else; it runs before the per-file cap of SPEC §5.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from ragls.core.documents import Document
from ragls.core.ranking.rules import (
    CHANGE_ROLE_POWER,
    CHANGE_VERBS,
    CONVENTIONAL_COMMIT,
    LONG_QUERY_WORDS,
    ROLES,
    SOURCE,
    Role,
)
from ragls.core.vocab import STOP_WORDS

RARE_DOCUMENTS = 3  # at most this many chunks hold the word ...
RARE_SHARE = 0.002  # ... and at most this share of the corpus
PHRASE_CANDIDATES = 150  # the best candidates whose text is read for phrases and rare words
_WORD = re.compile(r"[a-z0-9_]+")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_QUOTED = re.compile(r"\"([^\"]{3,200})\"|'([^']{3,200})'|`([^`]{2,200})`")
_NAME_SEPARATORS = re.compile(r"::|->|[.:#/\\]")
_PLAIN = re.compile(r"^\(?[a-z]+[?.,!;:)]*$")

DocumentFrequency = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class RankingWeights:
    roles: float = 1.0  # the power of each role's weight: 0 ignores roles, 2 squares them
    definition: float = 1.0
    phrase: float = 1.0
    quoted: float = 2.0
    rare: float = 2.0
    coherence: float = 0.3
    diminishing: float = 0.8


@dataclass(frozen=True, slots=True)
class Candidate:
    document: Document
    score: float
    best_rank: int


@lru_cache(maxsize=1 << 14)
def role_of(path: str) -> Role | None:
    """The first role whose pattern matches ``path``; None for source."""
    for role in ROLES:
        if role.path.search(path):
            return role
    return None


def role_name(path: str) -> str:
    role = role_of(path)
    return SOURCE if role is None else role.name


@dataclass(frozen=True, slots=True)
class QueryShape:
    """What the layer reads from a query once."""

    words: frozenset[str]  # plain lower-case words, for the roles a query asks for
    names: dict[str, float]  # lower-cased names -> how surely they are identifiers (1 or 0.5)
    pairs: tuple[str, ...]  # consecutive word pairs, for phrase overlap
    quoted: tuple[str, ...]  # quoted strings, lower-cased
    change: bool  # phrased as a change or pasted at length (see rules.CHANGE_VERBS)

    @staticmethod
    def of(query: str) -> QueryShape:
        lowered = query.lower()
        words = _WORD.findall(lowered)
        # A role is asked for by a plain word ("tests for the parser"), not by a name that
        # holds one ("Spec:normalize", "plugin_spec").
        plain = frozenset(
            token.rstrip("?.,!;:)").lstrip("(") for token in query.split() if _PLAIN.match(token)
        )
        tokens = lowered.split()
        change = bool(tokens) and (
            tokens[0] in CHANGE_VERBS
            or CONVENTIONAL_COMMIT.match(lowered) is not None
            or len(words) > LONG_QUERY_WORDS
        )
        names: dict[str, float] = {}
        for token in query.split():
            for piece in _NAME_SEPARATORS.split(token):
                for name in _NAME.findall(piece):
                    key = name.lower()
                    if len(key) < 3 or key in STOP_WORDS:
                        continue
                    sure = 1.0 if _looks_like_identifier(name) else 0.5
                    names[key] = max(names.get(key, 0.0), sure)
        pairs = tuple(dict.fromkeys(f"{a} {b}" for a, b in pairwise(words)))
        quoted = tuple(
            text.lower()
            for match in _QUOTED.finditer(query)
            if (text := next(group for group in match.groups() if group is not None)).strip()
        )
        return QueryShape(plain, names, pairs, quoted, change)


def _looks_like_identifier(name: str) -> bool:
    inner = name[1:]
    return (
        "_" in name.strip("_") or any(c.isupper() for c in inner) or any(c.isdigit() for c in name)
    )


class RankingLayer:
    """Rescores fused candidates (see the module docstring)."""

    def __init__(
        self,
        weights: RankingWeights = RankingWeights(),
        document_frequency: DocumentFrequency | None = None,
        document_count: Callable[[], int] | None = None,
    ) -> None:
        self.weights = weights
        self._frequency = document_frequency
        self._count = document_count

    def rerank(self, query: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        if not candidates:
            return []
        weights = self.weights
        shape = QueryShape.of(query)
        rare_words = self._rare_words(shape)
        roles_power = weights.roles * (CHANGE_ROLE_POWER if shape.change else 1.0)
        ordered = sorted(candidates, key=lambda c: -c.score)
        read_text = {c.document.id for c in ordered[:PHRASE_CANDIDATES]}
        scored: list[tuple[float, Candidate]] = []
        for candidate in candidates:
            document = candidate.document
            factor = 1.0
            path = document.metadata.get("file", "")
            if roles_power and path:
                role = role_of(path)
                if role is not None and not (role.asked_by & shape.words):
                    factor *= role.weight**roles_power
            if weights.definition and shape.names:
                factor *= 1.0 + weights.definition * _definition_match(document, shape.names)
            if document.id in read_text and (shape.pairs or shape.quoted or rare_words):
                text = document.content.lower()
                if weights.phrase and len(shape.pairs) >= 2:
                    share = sum(pair in text for pair in shape.pairs) / len(shape.pairs)
                    factor *= 1.0 + weights.phrase * share
                if weights.quoted and any(quoted in text for quoted in shape.quoted):
                    factor *= 1.0 + weights.quoted
                if weights.rare and any(word in text for word in rare_words):
                    factor *= 1.0 + weights.rare
            scored.append((candidate.score * factor, candidate))
        return self._by_file(scored)

    def _rare_words(self, shape: QueryShape) -> tuple[str, ...]:
        if not self.weights.rare or self._frequency is None or self._count is None:
            return ()
        total = self._count()
        limit = max(RARE_DOCUMENTS, int(RARE_SHARE * total))
        limit = min(limit, RARE_DOCUMENTS * 10)
        found = []
        for word in shape.words:
            if len(word) < 4 or word in STOP_WORDS:
                continue
            frequency = self._frequency(word)
            if 0 < frequency <= limit:
                found.append(word)
        return tuple(found)

    def _by_file(self, scored: list[tuple[float, Candidate]]) -> list[Candidate]:
        weights = self.weights
        scored.sort(key=lambda item: (-item[0], item[1].best_rank, item[1].document.id))
        by_file: dict[str, list[float]] = {}
        for score, candidate in scored:
            file = candidate.document.metadata.get("file")
            if file is not None:
                by_file.setdefault(file, []).append(score)
        seen: dict[str, int] = {}
        final: list[tuple[float, Candidate]] = []
        for score, candidate in scored:
            file = candidate.document.metadata.get("file")
            if file is None:
                final.append((score, candidate))
                continue
            position = seen.get(file, 0)
            seen[file] = position + 1
            others = [s for i, s in enumerate(by_file[file][:3]) if i != position][:2]
            adjusted = score + weights.coherence * sum(others)
            adjusted *= weights.diminishing**position
            final.append((adjusted, candidate))
        final.sort(key=lambda item: (-item[0], item[1].best_rank, item[1].document.id))
        return [Candidate(c.document, score, c.best_rank) for score, c in final]


def _definition_match(document: Document, names: dict[str, float]) -> float:
    symbol = document.metadata.get("symbol")
    if not symbol:
        return 0.0
    lowered = symbol.lower()
    last = _NAME_SEPARATORS.split(lowered)[-1]
    best = names.get(last, 0.0)
    if lowered in names:
        best = max(best, names[lowered])
    return best

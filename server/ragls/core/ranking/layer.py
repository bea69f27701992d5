"""The ranking layer: a second look at the fused candidates (SPEC §10; docs/retrieval.md).

Fusion ranks chunks by how well their words match; a developer asking a question also expects
the code that *defines* what they name before the code that uses it, source before tests, a
file that answers in several places before one that mentions a word once, and an exact phrase
or a word found nowhere else to win. :class:`RankingLayer` rescores the fused candidates with
these signals, each a factor with its own weight in :class:`RankingWeights` (0 turns it off,
which is how docs/retrieval.md's ablation table was measured):

* ``roles``: a chunk of a test, fixture, example, benchmark, generated, vendored, metadata or
  documentation file is scaled by its role's weight (:mod:`ragls.core.ranking.rules`) to the
  power ``roles`` unless the query asks for that role;
* ``definition``: a chunk whose symbol is an identifier the query says (``Spec:normalize``,
  ``mergePath``, a trace's functions; not a plain word) gains ``1 + definition``;
* ``phrase``: the share of the query's word pairs found in the chunk's text (an error message
  pasted as printed, a comment's words) gains ``1 + phrase * share``; a quoted string found
  verbatim gains ``1 + quoted``;
* ``rare``: a query word that at most :data:`RARE_DOCUMENTS` chunks hold (a unique name, a
  message's unusual word) gains ``1 + rare`` where the chunk holds it;
* ``named_file``: a chunk of a file the query names (``test_helpers.go``, ``src/app.ts``) gains
  ``1 + named_file`` and is never scaled down for its role;
* ``coherence``: each chunk gains ``coherence`` times the scores of its file's two best other
  candidates (a file that answers in several places);
* ``diminishing``: the n-th chunk of one file (best first) is scaled by ``diminishing ** n``,
  so one large file does not fill the list.

Each query kind (:mod:`ragls.core.ranking.shape`) has its own weights: a :class:`RankingProfile`.
The layer is pure: it sees the query, the candidates and one corpus statistic (how many chunks
hold a word); it runs before the per-file cap of SPEC §5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ragls.core.documents import Document
from ragls.core.ranking.rules import ROLES, SOURCE, Role
from ragls.core.ranking.shape import CHANGE, MESSAGE, NAME_SEPARATORS, QUESTION, TRACE, QueryShape
from ragls.core.vocab import STOP_WORDS

RARE_DOCUMENTS = 3  # at most this many chunks hold the word ...
RARE_SHARE = 0.0  # ... or at most this share of the corpus, whichever is larger
RARE_MAX_DOCUMENTS = 30
PHRASE_CANDIDATES = 40  # the best candidates whose text is read for phrases and rare words
FILE_CANDIDATES = 100  # the best candidates among which files gain coherence

DocumentFrequency = Callable[[str], int]
Keyed = tuple[float, int, str, "Candidate"]  # (-score, best rank, id, candidate): sorts in C


@dataclass(frozen=True, slots=True)
class RankingWeights:
    roles: float = 0.0  # the power of each role's weight: 0 ignores roles, 2 squares them
    definition: float = 0.0
    phrase: float = 0.0
    quoted: float = 0.0
    rare: float = 0.0
    coherence: float = 0.0
    diminishing: float = 1.0
    named_file: float = 0.0


@dataclass(frozen=True, slots=True)
class RankingProfile:
    """The weights for each query kind (a kind not named gets ``question``'s)."""

    question: RankingWeights = field(default_factory=RankingWeights)
    message: RankingWeights | None = None
    change: RankingWeights | None = None
    trace: RankingWeights | None = None

    def for_kind(self, kind: str) -> RankingWeights:
        if kind == TRACE and self.trace is not None:
            return self.trace
        if kind == MESSAGE and self.message is not None:
            return self.message
        if kind == CHANGE and self.change is not None:
            return self.change
        return self.question

    @staticmethod
    def uniform(weights: RankingWeights) -> RankingProfile:
        return RankingProfile(weights, weights, weights, weights)


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


class RankingLayer:
    """Rescores fused candidates (see the module docstring)."""

    def __init__(
        self,
        profile: RankingProfile,
        document_frequency: DocumentFrequency | None = None,
        document_count: Callable[[], int] | None = None,
    ) -> None:
        self.profile = profile
        self._frequency = document_frequency
        self._count = document_count

    def rerank(
        self, query: str, candidates: Sequence[Candidate], shape: QueryShape | None = None
    ) -> list[tuple[float, Candidate]]:
        """``(score, candidate)`` pairs, best first (ties: better best rank, then id)."""
        if not candidates:
            return []
        shape = shape if shape is not None else QueryShape.of(query)
        weights = self.profile.for_kind(shape.kind)
        rare_words = self._rare_words(shape, weights)
        pairs = shape.pairs if weights.phrase and len(shape.pairs) >= 2 else ()
        quoted = shape.quoted if weights.quoted else ()
        reads_text = bool(pairs or quoted or rare_words)
        files = shape.files
        names = {n: sure for n, sure in shape.names.items() if sure} if weights.definition else {}
        asked = shape.words
        roles_power = weights.roles
        keyed: list[Keyed] = []
        for position, candidate in enumerate(candidates):  # candidates come best first
            document = candidate.document
            metadata = document.metadata
            factor = 1.0
            path = metadata.get("file", "")
            if files and _names_file(path, files):
                factor = 1.0 + weights.named_file
            elif roles_power and path:
                role = role_of(path)
                if role is not None and not (role.asked_by & asked):
                    factor = role.weight**roles_power
            if names:
                symbol = metadata.get("symbol")
                if symbol and metadata.get("kind"):
                    factor *= 1.0 + weights.definition * _definition_match(symbol, names)
            if reads_text and position < PHRASE_CANDIDATES:
                text = document.content.lower()
                if pairs:
                    factor *= 1.0 + weights.phrase * sum(p in text for p in pairs) / len(pairs)
                if quoted and any(q in text for q in quoted):
                    factor *= 1.0 + weights.quoted
                if rare_words and any(word in text for word in rare_words):
                    factor *= 1.0 + weights.rare
            keyed.append((-candidate.score * factor, candidate.best_rank, document.id, candidate))
        keyed.sort()  # tuples compare in C: score, then best rank, then id (ids are unique)
        if weights.coherence or weights.diminishing != 1.0:
            keyed = _by_file(keyed, weights)
        return [(-key[0], key[3]) for key in keyed]

    def _rare_words(self, shape: QueryShape, weights: RankingWeights) -> tuple[str, ...]:
        if not weights.rare or self._frequency is None or self._count is None:
            return ()
        limit = min(max(RARE_DOCUMENTS, int(RARE_SHARE * self._count())), RARE_MAX_DOCUMENTS)
        found = []
        for word in shape.names:
            if len(word) < 4 or word in STOP_WORDS:
                continue
            frequency = self._frequency(word)
            if 0 < frequency <= limit:
                found.append(word)
        return tuple(found)


def _by_file(keyed: list[Keyed], weights: RankingWeights) -> list[Keyed]:
    """Coherence and diminishing returns per file among the best :data:`FILE_CANDIDATES` of
    ``keyed`` (sorted): the n-th best chunk of a file gains the two best of the others and is
    scaled by ``diminishing ** n``; the rest, which cannot reach a first page, keep their
    scores."""
    head = keyed[:FILE_CANDIDATES]
    files = [key[3].document.metadata.get("file") for key in head]
    best: dict[str, list[float]] = {}
    for key, file in zip(head, files, strict=True):
        if file is not None:
            top = best.setdefault(file, [])
            if len(top) < 3:
                top.append(-key[0])
    seen: dict[str, int] = {}
    coherence, diminishing = weights.coherence, weights.diminishing
    for index, (key, file) in enumerate(zip(head, files, strict=True)):
        if file is None:
            continue
        top = best[file]
        if len(top) == 1 and diminishing == 1.0:
            continue  # a file's only chunk among the head: nothing changes
        position = seen.get(file, 0)
        seen[file] = position + 1
        others = sum(top[:2]) if position >= 2 else sum(top) - top[position]
        score = (-key[0] + coherence * others) * diminishing**position
        head[index] = (-score, key[1], key[2], key[3])
    keyed[:FILE_CANDIDATES] = head
    keyed.sort()
    return keyed


def _names_file(path: str, files: tuple[str, ...]) -> bool:
    """Whether ``path`` (relative to the root) is a file the query names: the same path, a name
    it ends with, or an absolute path of a trace that ends with it."""
    lowered = path.lower()
    return any(
        lowered == f or lowered.endswith("/" + f) or f.endswith("/" + lowered) for f in files
    )


def _definition_match(symbol: str, names: dict[str, float]) -> float:
    whole, last = _symbol_keys(symbol)
    return max(names.get(last, 0.0), names.get(whole, 0.0))


@lru_cache(maxsize=1 << 14)
def _symbol_keys(symbol: str) -> tuple[str, str]:
    """A symbol lower-cased, whole and its last component (``Flask.route`` -> ``route``)."""
    lowered = symbol.lower()
    return lowered, NAME_SEPARATORS.split(lowered)[-1]


__all__ = [
    "CHANGE",
    "MESSAGE",
    "QUESTION",
    "TRACE",
    "Candidate",
    "QueryShape",
    "RankingLayer",
    "RankingProfile",
    "RankingWeights",
    "role_name",
    "role_of",
]

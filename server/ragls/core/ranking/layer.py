"""The ranking layer: a second look at the fused candidates (SPEC §10; docs/retrieval.md).

Fusion ranks chunks by how well their words match; a developer asking a question also expects
the code that *defines* what they name before the code that uses it, source before tests, a
file that answers in several places before one that mentions a word once, and an exact phrase
or a word found nowhere else to win. :class:`RankingLayer` rescores the fused candidates with
these signals, each a factor with its own weight in :class:`RankingWeights` (0 turns it off,
which is how docs/retrieval.md's ablation table was measured):

* ``roles``: a chunk of a test, fixture, example, benchmark, generated, vendored, interface,
  metadata or documentation file is scaled by its role's weight
  (:mod:`ragls.core.ranking.rules`) to the power ``roles``; not at all when the query asks
  for that role by one of its words, or to the power ``roles * asked_roles`` when those words
  are ambiguous ("test", "mock", "spec" also name what source code does); a kind may leave
  some roles unscaled (``unscaled_roles``);
* ``definition``: a chunk whose symbol is an identifier the query says (``Spec:normalize``,
  ``mergePath``, a trace's functions; not a plain word) gains ``1 + definition``;
* ``phrase``: the share of the query's word pairs found in the chunk's text (an error message
  pasted as printed, a comment's words) gains ``1 + phrase * share``; a quoted string found
  verbatim gains ``1 + quoted``;
* ``rare``: a query word that at most :data:`RARE_DOCUMENTS` chunks hold (a unique name, a
  message's unusual word) gains ``1 + rare`` where the chunk holds it;
* ``named_file``: a chunk of a file the query names (``test_helpers.go``, ``src/app.ts``) gains
  ``1 + named_file`` and is never scaled down for its role;
* ``path_word``: a chunk of a file whose stem holds a share of the query's words, compared
  after one ending is taken off (:func:`conflate`: "fused" reaches ``fusion.py``), gains
  ``1 + path_word * share``;
* ``coherence``: each chunk gains ``coherence`` times the scores of its file's two best other
  candidates (a file that answers in several places);
* ``diminishing``: the n-th chunk of one file (best first) is scaled by ``diminishing ** n``,
  so one large file does not fill the list;
* ``frames``: not a factor but the fused weight of one more ranking, the chunks holding the
  lines of a pasted trace's frames (:mod:`ragls.core.frames`), which the retriever adds before
  this layer;
* ``identifiers``: not a factor either but the fused weight of one ranking per rare identifier
  the query writes (at most :data:`~ragls.core.verbatim.IDENTIFIER_MOST` chunks hold it): the
  chunks that hold it (:func:`~ragls.core.verbatim.identifier_slots`), added before this layer.

Each query kind (:mod:`ragls.core.ranking.shape`) has its own weights: a :class:`RankingProfile`.
The layer is pure: it sees the query, the candidates and one corpus statistic (how many chunks
hold a word); it runs before the per-file cap of SPEC §5.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

import numpy as np

from ragls.core.documents import Document
from ragls.core.pruning import order_by_score
from ragls.core.ranking.columns import (
    NO_FAMILY,
    NONE,
    Columns,
    FloatArray,
    IntArray,
    Interner,
    family_code,
    names_file,
    role_of,
    symbol_keys,
)
from ragls.core.ranking.rules import (
    FAMILIES,
    FAMILY_WORDS,
    MINORITY_SHARE,
    PATH_WORD_ENDINGS,
    PATH_WORD_MIN,
    PATH_WORD_ROOT,
    QUALIFIED_NAME,
    ROLES,
    SOURCE,
    Role,
)
from ragls.core.ranking.shape import CHANGE, MESSAGE, QUESTION, TRACE, QueryShape
from ragls.core.verbatim import IDENTIFIER_MOST, whole_terms
from ragls.core.vocab import STOP_WORDS

RARE_DOCUMENTS = 3  # at most this many chunks hold the word ...
RARE_SHARE = 0.0  # ... or at most this share of the corpus, whichever is larger
RARE_MAX_DOCUMENTS = 30
PHRASE_CANDIDATES = 40  # the best candidates whose text is read for phrases and rare words
FILE_CANDIDATES = 100  # the best candidates among which files gain coherence

DocumentFrequency = Callable[[str], int]
_STEM_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


@dataclass(frozen=True, slots=True)
class RankingWeights:
    roles: float = 0.0  # the power of each role's weight: 0 ignores roles, 2 squares them
    asked_roles: float = 0.0  # the share of ``roles`` kept for a role the query asks for
    unscaled_roles: frozenset[str] = frozenset()  # roles (by name) this kind does not scale
    definition: float = 0.0
    phrase: float = 0.0
    quoted: float = 0.0
    rare: float = 0.0
    coherence: float = 0.0
    diminishing: float = 1.0
    named_file: float = 0.0
    path_word: float = 0.0
    frames: float = 0.0  # the fused weight of the chunks at a trace's frame lines
    identifiers: float = 0.0  # the fused weight of the chunks holding a rare identifier
    minority: float = 1.0  # the factor of a chunk in a minority language (rules.MINORITY_SHARE)


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


@dataclass(frozen=True, slots=True)
class RankingPlan:
    """What one query asks of the layer, read before the candidates (it may ask the corpus how
    many chunks hold a word, which a caller holding the index's lock could not do after)."""

    shape: QueryShape
    weights: RankingWeights
    rare_words: tuple[str, ...]
    pairs: tuple[str, ...]
    quoted: tuple[str, ...]
    names: dict[str, float]
    role_factors: FloatArray  # by role number: the factor of a chunk of that role
    path_words: frozenset[str] = frozenset()  # the query's words, conflated (path_word)
    frame_lines: tuple[tuple[str, int], ...] = ()  # a trace's (file, line), when weighed
    identifiers: tuple[str, ...] = ()  # the whole terms of the rare identifiers it writes
    # by language family number (NO_FAMILY last): the factor of a chunk of that language; None
    # when the rule is off or no language is a minority
    family_factors: FloatArray | None = None

    @property
    def reads_text(self) -> bool:
        return bool(self.pairs or self.quoted or self.rare_words)


def _asked_share(role: Role, asked: frozenset[str], weights: RankingWeights) -> float:
    """The share of the roles rule's power a chunk of ``role`` is scaled by for a query saying
    the plain words ``asked``: all of it unless the query asks for the role; then none, or
    ``asked_roles`` where the role's words are ambiguous (:attr:`Role.ambiguous`)."""
    if not role.asked_by & asked:
        return 1.0
    return weights.asked_roles if role.ambiguous else 0.0


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
        family_counts: Callable[[], IntArray] | None = None,
    ) -> None:
        """``family_counts``: how many live chunks the corpus holds of each language family
        (by number, NO_FAMILY last; :meth:`ragls.core.code_stream.CodeStream.family_counts`),
        for the minority-language rule; without it the rule is off."""
        self.profile = profile
        self._frequency = document_frequency
        self._count = document_count
        self._family_counts = family_counts

    def rerank(
        self, query: str, candidates: Sequence[Candidate], plan: RankingPlan | None = None
    ) -> list[tuple[float, Candidate]]:
        """``(score, candidate)`` pairs, best first (ties: better best rank, then id);
        ``plan`` is :meth:`plan` of the query's shape when the caller made it already."""
        if not candidates:
            return []
        if plan is None:
            plan = self.plan(QueryShape.of(query))
        interner = Interner()
        numbers = [interner.file_and_symbol(c.document.metadata) for c in candidates]
        columns = Columns(
            scores=np.array([c.score for c in candidates], np.float64),
            best_ranks=np.array([c.best_rank for c in candidates], np.int64),
            files=np.array([file for file, _ in numbers], np.int64),
            symbols=np.array([symbol for _, symbol in numbers], np.int64),
            interner=interner,
            ids_of=lambda positions: [candidates[p].document.id for p in positions.tolist()],
            texts_of=lambda count: [c.document.content for c in candidates[:count]],
        )
        order, scores = self.rerank_columns(plan, columns)
        return [(float(scores[p]), candidates[p]) for p in order.tolist()]

    def plan(self, shape: QueryShape) -> RankingPlan:
        weights = self.profile.for_kind(shape.kind)
        asked = shape.words
        power = weights.roles
        # Each role's factor computed once, in Python as before (a numpy power could round
        # differently in the last place).
        factors = [
            role.weight ** (power * _asked_share(role, asked, weights))
            if power and role.name not in weights.unscaled_roles
            else 1.0
            for role in ROLES
        ]
        names = {n: sure for n, sure in shape.names.items() if sure} if weights.definition else {}
        if weights.definition:
            # A symbol whose whole qualified name the query writes is surer than one whose
            # last component it says.
            names |= dict.fromkeys(shape.qualified, QUALIFIED_NAME)
        return RankingPlan(
            shape=shape,
            weights=weights,
            rare_words=self._rare_words(shape, weights),
            pairs=shape.pairs if weights.phrase and len(shape.pairs) >= 2 else (),
            quoted=shape.quoted if weights.quoted else (),
            names=names,
            role_factors=np.array([*factors, 1.0], np.float64),
            path_words=_query_path_words(shape) if weights.path_word else frozenset(),
            frame_lines=shape.frame_lines if weights.frames else (),
            identifiers=self._rare_identifiers(shape, weights),
            family_factors=self._family_factors(shape, weights),
        )

    def rerank_columns(self, plan: RankingPlan, columns: Columns) -> tuple[IntArray, FloatArray]:
        """(candidate positions best first, each position's new score): the rules of the module
        docstring over ``columns`` (in fused order), ties by best rank, then id."""
        weights = plan.weights
        factor = self._file_factors(plan, columns)
        if plan.names:
            factor *= _definition_factors(plan, columns)
        if plan.reads_text:
            _text_factors(plan, columns, factor)
        scores = columns.scores * factor
        order = order_by_score(scores, columns.best_ranks, columns.ids_of)
        if weights.coherence or weights.diminishing != 1.0:
            order = _by_file(order, scores, columns, weights)
        return order, scores

    def _file_factors(self, plan: RankingPlan, columns: Columns) -> FloatArray:
        """Named files gain ``1 + named_file``; the others are scaled for their role."""
        files = columns.files
        if plan.weights.roles:
            factor = plan.role_factors[columns.interner.roles_of(files)]
        else:
            factor = np.ones(len(columns))
        if plan.shape.files:
            values = columns.interner.values
            named = [
                number
                for number in np.unique(files).tolist()
                if _names_file("" if number == NONE else values[number], plan.shape.files)
            ]
            if named:
                factor[np.isin(files, named)] = 1.0 + plan.weights.named_file
        if plan.path_words:
            factor *= _path_word_factors(plan, columns)
        if plan.family_factors is not None:
            factor *= plan.family_factors[columns.interner.families_of(files)]
        return factor

    def _family_factors(self, shape: QueryShape, weights: RankingWeights) -> FloatArray | None:
        """Each language family's factor for this query: ``minority`` for a language that holds
        less than :data:`MINORITY_SHARE` of the corpus's chunks of a language (and some), unless
        the query says one of its words or names a file of it; 1 for the others."""
        if weights.minority == 1.0 or self._family_counts is None:
            return None
        counts = self._family_counts()
        known = counts[:NO_FAMILY]
        total = int(known.sum())
        minority = (known > 0) & (known < MINORITY_SHARE * total)
        if not minority.any():
            return None
        named = {family_code(file) for file in shape.files}
        factors = np.ones(NO_FAMILY + 1)
        for number in np.flatnonzero(minority).tolist():
            name = FAMILIES[number]
            if number in named or (FAMILY_WORDS.get(name, frozenset()) | {name}) & shape.words:
                continue
            factors[number] = weights.minority
        return factors

    def _rare_identifiers(self, shape: QueryShape, weights: RankingWeights) -> tuple[str, ...]:
        """The whole terms of the names the query writes as code that at most
        :data:`IDENTIFIER_MOST` chunks hold (not a word in capitals alone: "GPU-backed
        bitmaps" is prose, and the one build script that says "gpu" is not its answer)."""
        if not weights.identifiers or self._frequency is None:
            return ()
        frequency = self._frequency
        rare = [
            name
            for name, value in shape.names.items()
            if value >= 1.0
            and name not in shape.acronyms
            and 0 < frequency(name) <= IDENTIFIER_MOST
        ]
        return tuple(whole_terms(rare))

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


def _query_path_words(shape: QueryShape) -> frozenset[str]:
    return frozenset(
        conflate(word)
        for word in shape.words
        if len(word) >= PATH_WORD_MIN and word not in STOP_WORDS
    )


def _path_word_factors(plan: RankingPlan, columns: Columns) -> FloatArray:
    """``1 + path_word * share`` for chunks of files whose stem holds ``share`` of the query's
    (conflated) words."""
    values, wanted, weight = columns.interner.values, plan.path_words, plan.weights.path_word
    numbers, inverse = np.unique(columns.files, return_inverse=True)
    gains = np.ones(len(numbers))
    for position, number in enumerate(numbers.tolist()):
        if number != NONE and (found := len(wanted & stem_words(values[number]))):
            gains[position] = 1.0 + weight * found / len(wanted)
    return gains[inverse]


@lru_cache(maxsize=1 << 14)
def conflate(word: str) -> str:
    """``word`` (lower case) without the first of :data:`PATH_WORD_ENDINGS` that leaves at
    least :data:`PATH_WORD_ROOT` letters."""
    for ending, replacement in PATH_WORD_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) + len(replacement) >= PATH_WORD_ROOT:
            return word[: len(word) - len(ending)] + replacement
    return word


@lru_cache(maxsize=1 << 14)
def stem_words(path: str) -> frozenset[str]:
    """The conflated words of a path's file stem (``core/slot_fusion.py``: slot, fusion)."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    words = [part.lower() for part in _STEM_PART.findall(stem)]
    return frozenset(conflate(word) for word in words if len(word) >= PATH_WORD_ROOT)


def _definition_factors(plan: RankingPlan, columns: Columns) -> FloatArray:
    """``1 + definition * match`` for chunks whose symbol the query names (1 elsewhere): the
    surer of the names equal to the symbol's lower-cased whole or last component, compared as
    the interner's key numbers."""
    factor = np.ones(len(columns))
    symbols = columns.symbols
    defined = np.flatnonzero(symbols != NONE)
    if not len(defined):
        return factor
    interner = columns.interner
    keys = interner.symbol_key_numbers(symbols[defined])
    sure = {interner.key_number(name): value for name, value in plan.names.items()}
    known = np.array(sorted(sure), np.int64)
    values = np.array([sure[number] for number in known.tolist()] + [0.0])
    # Each key's place among the known ones, or the last entry (0.0) where it is not one.
    places = np.searchsorted(known, keys)
    places[known[np.minimum(places, len(known) - 1)] != keys] = len(known)
    matched = np.maximum(values[places[:, 0]], values[places[:, 1]])
    factor[defined] = 1.0 + plan.weights.definition * matched
    return factor


def _text_factors(plan: RankingPlan, columns: Columns, factor: FloatArray) -> None:
    """Phrases, quoted strings and rare words in the text of the first
    :data:`PHRASE_CANDIDATES` candidates (multiplied into ``factor`` in place, in the order the
    rules are listed). The texts are lower-cased and searched as one string, each needle once
    (:func:`_holders`), rather than each text for each needle."""
    weights, pairs, quoted, rare_words = plan.weights, plan.pairs, plan.quoted, plan.rare_words
    count = min(len(columns), PHRASE_CANDIDATES)
    if not count:
        return
    texts = columns.texts_of(count)
    joined, starts = _joined_lower(texts)
    pair_counts = [0] * count
    for pair in pairs:
        for position in _holders(joined, starts, pair, texts):
            pair_counts[position] += 1
    quoted_in = set().union(*(_holders(joined, starts, q, texts) for q in quoted))
    rare_in = set().union(*(_holders(joined, starts, w, texts) for w in rare_words))
    values = factor[:count].tolist()
    for position in range(count):
        value = values[position]
        if pairs:
            value *= 1.0 + weights.phrase * pair_counts[position] / len(pairs)
        if position in quoted_in:
            value *= 1.0 + weights.quoted
        if position in rare_in:
            value *= 1.0 + weights.rare
        values[position] = value
    factor[:count] = values


_SEPARATOR = "\x00"


def _joined_lower(texts: list[str]) -> tuple[str, list[int]]:
    """``texts`` lower-cased and joined by :data:`_SEPARATOR`, and where each one starts."""
    lowered = [text.lower() for text in texts]
    return _SEPARATOR.join(lowered), [0, *accumulate(len(text) + 1 for text in lowered[:-1])]


def _holders(joined: str, starts: list[int], needle: str, texts: list[str]) -> set[int]:
    """The positions of the texts (joined, lower-cased, separated by :data:`_SEPARATOR`,
    starting at ``starts``) that hold ``needle``; a needle holding the separator is looked for
    in each text alone."""
    if _SEPARATOR in needle:
        return {p for p, text in enumerate(texts) if needle in text.lower()}
    found: set[int] = set()
    at = joined.find(needle)
    while at != -1:
        position = bisect_right(starts, at) - 1
        found.add(position)
        if position + 1 == len(starts):
            break
        at = joined.find(needle, starts[position + 1])
    return found


def _by_file(
    order: IntArray, scores: FloatArray, columns: Columns, weights: RankingWeights
) -> IntArray:
    """Coherence and diminishing returns per file among the best :data:`FILE_CANDIDATES` of
    ``order``: the n-th best chunk of a file gains the two best of the others and is scaled by
    ``diminishing ** n``; the rest, which cannot reach a first page, keep their scores.
    ``scores`` is updated in place; returns the new order. The head is a hundred candidates,
    where a Python pass costs less than numpy's per-call overhead (measured); each chunk's
    gain is ``(b0 + b1) + b2 - own`` or ``b0 + b1`` over its file's three best scores, as
    before, so the floats are the same."""
    head = order[:FILE_CANDIDATES]
    if not len(head):
        return order
    coherence, diminishing = weights.coherence, weights.diminishing
    files = columns.files[head].tolist()
    own = scores[head].tolist()
    places: list[int] = []
    held: dict[int, int] = {}
    best: dict[int, list[float]] = {}  # each file's three best scores (head order), 0.0 missing
    for file, score in zip(files, own, strict=True):
        place = held.get(file, 0)
        held[file] = place + 1
        places.append(place)
        if place == 0:
            best[file] = [score, 0.0, 0.0]
        elif place < 3:
            best[file][place] = score
    # With no diminishing returns only the files with several chunks in the head change.
    least = 1 if diminishing != 1.0 else 2
    changed: list[int] = []
    updated: list[float] = []
    for position, file in enumerate(files):
        if file == NONE or held[file] < least:
            continue
        first, second, third = best[file]
        place, score = places[position], own[position]
        others = first + second if place >= 2 else first + second + third - score
        value = score + coherence * others
        if diminishing != 1.0:
            value = value * diminishing ** float(place)
        changed.append(position)
        updated.append(value)
    if not changed:
        return order
    scores[head[changed]] = updated
    return order_by_score(scores, columns.best_ranks, columns.ids_of)


def _names_file(path: str, files: tuple[str, ...]) -> bool:
    """Whether ``path`` (relative to the root) is a file the query names: the same path, a name
    it ends with, or an absolute path of a trace that ends with it."""
    lowered = path.lower()
    return any(names_file(lowered, f) for f in files)


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
    "symbol_keys",
]

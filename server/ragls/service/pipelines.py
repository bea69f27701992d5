"""Named retrieval pipelines: which streams a session fuses, and with what weights (SPEC §10).

* ``seed``: the seed's pipeline exactly, BM25 at 0.6 and TF-IDF at 0.4 (what ``RagService()``
  builds when no pipeline is named).
* ``workspace``: the preset the daemon, the CLI and the MCP server use: the code stream
  (:mod:`ragls.core.code_stream`: identifier sub-tokens, symbol and path fields) at 1.0, the
  same index asked for whole identifiers only at 0.7 (the seed's whole-word signal, for
  questions and messages, not for changes), fused by the same RRF, then the ranking layer
  (:mod:`ragls.core.ranking`) with weights per query kind, then the per-file cap. The field
  weights were chosen with ``ragls eval`` on commit histories; the whole-word weight and the
  ranking weights on the question set's tuning repositories, checked on the commit histories.
  The tables are in ``docs/retrieval.md``.

``workspace-semantic`` adds the semantic stream (:mod:`ragls.core.semantic`: static embeddings
of each chunk, computed in the background after the lexical index answers) at 0.5 for
questions and messages. It is opt-in: it needs the ``semantic`` extra and did not earn the
default (docs/retrieval.md, "The semantic stream").

The others exist to measure against (``ragls eval --pipeline``): ``code`` (the code stream
alone: the workspace preset before the question work), BM25 and TF-IDF alone, ``code-split``
(BM25 over identifier sub-tokens without the symbol and path fields) and ``fused`` (the code
stream with the seed's two streams fused in).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ragls.core.code_stream import FieldWeights
from ragls.core.ranking.layer import RankingProfile, RankingWeights
from ragls.core.ranking.shape import MESSAGE, QUESTION, TRACE
from ragls.errors import InvalidArgumentError


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A weight per stream (0 leaves the stream out) and the code stream's field weights."""

    name: str
    description: str
    bm25: float = 0.0
    tfidf: float = 0.0
    code: float = 0.0
    fields: FieldWeights = field(default_factory=FieldWeights)
    ranking: RankingProfile | None = None  # the ranking layer after fusion; None: none
    bm25_kinds: frozenset[str] | None = None  # query kinds BM25 is asked for; None: every kind
    # The code stream's index asked for whole identifiers only (no split, body only): the
    # whole-word signal without a second index.
    words: float = 0.0
    word_fields: FieldWeights = field(
        default_factory=lambda: FieldWeights(
            body=1.0, symbol=0.0, path=0.0, b=0.75, whole_words=True
        )
    )
    words_kinds: frozenset[str] | None = None
    # The semantic stream (ragls.core.semantic): embeddings computed in the background.
    semantic: float = 0.0
    semantic_kinds: frozenset[str] | None = None

    @property
    def uses_code(self) -> bool:
        return self.code > 0 or self.words > 0


SEED = Pipeline("seed", "BM25 0.6 + TF-IDF 0.4 (the seed's pipeline)", bm25=0.6, tfidf=0.4)
WORKSPACE_FIELDS = FieldWeights(body=1.0, symbol=2.0, path=2.0, k1=1.2, b=0.5)
# Measured (docs/retrieval.md, "The ranking layer"): each weight, and each query kind's.
_QUESTION_WEIGHTS = RankingWeights(
    roles=2.0,
    # "test", "spec" or "mock" in a question is as often about the code that runs tests, reads
    # a plugin spec or builds a mock (a test framework, a mocking helper) as about test files:
    # a role a question asks for is scaled by its weight's square root rather than not at all.
    # A change ("add tests for ...") touches the tests it names: there they are not scaled.
    asked_roles=0.5,
    definition=0.5,
    quoted=2.0,
    rare=0.5,
    # A file answering in several places: 0.1 chosen on the four question sets (0.05 before;
    # 0.15 lifted the sets more but lowered a commit history); messages keep 0.05.
    coherence=0.1,
    named_file=1.0,
    path_word=0.5,
    identifiers=1.0,
    # A file in a language that holds under 15% of the index's code (a Go server's TypeScript
    # web UI, a C library's Python scripts), unless the question names the language.
    minority=0.8,
)
WORKSPACE_RANKING = RankingProfile(
    question=_QUESTION_WEIGHTS,
    # A message pasted as printed: its word pairs count; a path word does not (measured).
    message=replace(
        _QUESTION_WEIGHTS,
        phrase=1.0,
        path_word=0.0,
        asked_roles=0.0,
        identifiers=0.0,
        coherence=0.05,
        minority=1.0,
    ),
    # A change touches an interface with its implementation (a new option in index.js and
    # index.d.ts): interfaces are not scaled for it.
    change=RankingWeights(
        roles=0.25, named_file=1.0, unscaled_roles=frozenset({"interface", "docs-code"})
    ),
    # A pasted stack trace: its frames' files and functions are what it is about.
    trace=RankingWeights(
        roles=1.0,
        definition=1.0,
        quoted=2.0,
        rare=0.5,
        named_file=2.0,
        frames=2.0,
        identifiers=1.0,
    ),
)
NOT_CHANGES = frozenset((QUESTION, MESSAGE, TRACE))
CODE = Pipeline(
    "code",
    "the code stream alone (sub-tokens, symbol x2, path x2; BM25 k1 1.2, b 0.5)",
    code=1.0,
    fields=WORKSPACE_FIELDS,
)
WORKSPACE = Pipeline(
    "workspace",
    "code stream 1.0 + whole identifiers 0.7 (questions, messages), then the ranking layer",
    code=1.0,
    fields=WORKSPACE_FIELDS,
    words=0.7,
    words_kinds=NOT_CHANGES,
    ranking=WORKSPACE_RANKING,
)
# Opt-in: measured at +0.02 nDCG@10 or less on the question set, below the bar for a default
# (docs/retrieval.md, "The semantic stream").
WORKSPACE_SEMANTIC = Pipeline(
    "workspace-semantic",
    "the workspace pipeline + a semantic stream 0.5 (questions, messages; static embeddings)",
    code=1.0,
    fields=WORKSPACE_FIELDS,
    words=0.7,
    words_kinds=NOT_CHANGES,
    ranking=WORKSPACE_RANKING,
    semantic=0.5,
    semantic_kinds=NOT_CHANGES,
)

PIPELINES: dict[str, Pipeline] = {
    pipeline.name: pipeline
    for pipeline in (
        SEED,
        WORKSPACE,
        WORKSPACE_SEMANTIC,
        CODE,
        Pipeline("semantic", "the semantic stream alone (static embeddings)", semantic=1.0),
        Pipeline("bm25", "BM25 alone (SPEC §2 analyzer)", bm25=1.0),
        Pipeline("tfidf", "TF-IDF cosine alone", tfidf=1.0),
        Pipeline(
            "code-split",
            "BM25 over identifier sub-tokens alone (no symbol or path field)",
            code=1.0,
            fields=FieldWeights(body=1.0, symbol=0.0, path=0.0),
        ),
        Pipeline(
            "fused",
            "code stream 1.0 + BM25 0.6 + TF-IDF 0.4 (the seed's streams fused in)",
            bm25=0.6,
            tfidf=0.4,
            code=1.0,
            fields=WORKSPACE_FIELDS,
        ),
    )
}


def pipeline_named(name: str) -> Pipeline:
    """The preset called ``name``; an error naming the known ones otherwise."""
    found = PIPELINES.get(name)
    if found is None:
        raise InvalidArgumentError(
            f"unknown pipeline {name!r}; known pipelines: {', '.join(sorted(PIPELINES))}"
        )
    return found

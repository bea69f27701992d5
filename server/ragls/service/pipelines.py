"""Named retrieval pipelines: which streams a session fuses, and with what weights (SPEC §10).

* ``seed``: the seed's pipeline exactly, BM25 at 0.6 and TF-IDF at 0.4 (what ``RagService()``
  builds when no pipeline is named).
* ``workspace``: the preset the daemon, the CLI and the MCP server use: the code stream
  (:mod:`ragls.core.code_stream`: identifier sub-tokens, symbol and path fields) through the
  same RRF and per-file cap. Its field weights and the stream weights were chosen with ``ragls
  eval`` on the commit histories of six repositories; fusing the seed's BM25 and TF-IDF streams
  in at any weight made it worse, so it has none. The tables are in ``docs/retrieval.md``.

The others exist to measure against (``ragls eval --pipeline``): BM25 and TF-IDF alone,
``code-split`` (BM25 over identifier sub-tokens without the symbol and path fields) and
``fused`` (the code stream with the seed's two streams fused in).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragls.core.code_stream import FieldWeights
from ragls.core.ranking.layer import RankingWeights
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
    ranking: RankingWeights | None = None  # the ranking layer after fusion; None: none

    @property
    def uses_code(self) -> bool:
        return self.code > 0


SEED = Pipeline("seed", "BM25 0.6 + TF-IDF 0.4 (the seed's pipeline)", bm25=0.6, tfidf=0.4)
WORKSPACE_FIELDS = FieldWeights(body=1.0, symbol=2.0, path=2.0, k1=1.2, b=0.5)
# Measured (docs/retrieval.md): fusing BM25 or TF-IDF into the code stream at any weight
# lowered MRR@10 on average over six repositories, for whole commit messages and for subjects
# alone, so the preset fuses the code stream alone (RRF ranks, the per-file cap).
WORKSPACE = Pipeline(
    "workspace",
    "the code stream (sub-tokens, symbol x2, path x2; BM25 k1 1.2, b 0.5)",
    code=1.0,
    fields=WORKSPACE_FIELDS,
)

PIPELINES: dict[str, Pipeline] = {
    pipeline.name: pipeline
    for pipeline in (
        SEED,
        WORKSPACE,
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

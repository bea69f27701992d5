"""HybridRetriever: weighted reciprocal rank fusion of several streams (SPEC §5).

Each stream is asked for a fixed candidate depth, ``max(200, 2 * top_k)`` results (SPEC §5: the
seed's ``2 * top_k`` made the order depend on ``top_k``, so ``k=1`` and ``k=10`` could put
different files first; with a fixed depth ``retrieve(q, k)`` is a prefix of ``retrieve(q, K)``
for every k < K up to 100). A document's fused score is
``sum(weight / (RRF_K + rank + 1))`` over the streams that returned it, rank counted from 0.
A stream that raises is logged and skipped. Results are ordered by fused score, then by the best
rank any stream gave them, then by id, so equal inputs always give the same order. At most
``per_file_cap`` (3) results share one value of metadata ``file``; documents without ``file``
(added documents) are not capped.

A retriever may carry a ranking layer (:class:`ragls.core.ranking.layer.RankingLayer`, SPEC
§10's workspace pipeline): it rescores every fused candidate before the per-file cap. The
candidates do not depend on ``top_k`` either, so the prefix property holds with it. A stream
may be asked only for some query kinds (:mod:`ragls.core.ranking.shape`): the workspace
pipeline asks its whole-word stream for questions and messages, not for changes.

When every stream asked is a view of one code index (the workspace pipeline), the fusion, the
layer and the cap run over that index's slot arrays (:mod:`ragls.core.slot_fusion`), with the
same results as the general path below.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document, RetrievalStream, SearchResult
from ragls.core.ranking.layer import Candidate, RankingLayer
from ragls.core.ranking.shape import QueryShape
from ragls.core.slot_fusion import fuse_views
from ragls.core.validation import check_query, check_top_k
from ragls.core.verbatim import VERBATIM_WEIGHT
from ragls.errors import ConfigurationError

log = logging.getLogger(__name__)

RRF_K = 60
CANDIDATE_DEPTH = 200
CANDIDATES_PER_RESULT = 2
PER_FILE_CAP = 3
FILE_KEY = "file"


def candidate_depth(top_k: int) -> int:
    """How many results each stream is asked for: max(200, 2 * top_k)."""
    return max(CANDIDATE_DEPTH, CANDIDATES_PER_RESULT * top_k)


def rrf_contribution(weight: float, rank: int) -> float:
    """One stream's share of a document's fused score: weight / (60 + rank + 1)."""
    return weight / (RRF_K + rank + 1)


@dataclass(frozen=True, slots=True)
class WeightedStream:
    stream: RetrievalStream
    weight: float
    kinds: frozenset[str] | None = None  # the query kinds it is asked for; None: every kind

    def asked_for(self, shape: QueryShape | None) -> bool:
        return self.kinds is None or shape is None or shape.kind in self.kinds


StreamSpec = tuple[RetrievalStream, float] | tuple[RetrievalStream, float, frozenset[str] | None]


def _check_weight(weight: object) -> float:
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise ConfigurationError(f"stream weight must be a number, got {type(weight).__name__}")
    if not math.isfinite(weight) or weight <= 0:
        raise ConfigurationError(f"stream weight must be positive and finite, got {weight!r}")
    return float(weight)


class HybridRetriever:
    """Fuses ranked streams with weighted RRF and caps results per file."""

    def __init__(
        self,
        streams: Iterable[StreamSpec],
        *,
        per_file_cap: int = PER_FILE_CAP,
        ranking: RankingLayer | None = None,
    ) -> None:
        weighted = [
            WeightedStream(spec[0], _check_weight(spec[1]), spec[2] if len(spec) > 2 else None)
            for spec in streams
        ]
        if not weighted:
            raise ConfigurationError("HybridRetriever needs at least one stream; none was given")
        if isinstance(per_file_cap, bool) or not isinstance(per_file_cap, int) or per_file_cap < 1:
            raise ConfigurationError(
                f"per_file_cap must be a positive integer, got {per_file_cap!r}"
            )
        self._streams = tuple(weighted)
        self._per_file_cap = per_file_cap
        self._ranking = ranking

    @staticmethod
    def builder() -> HybridRetrieverBuilder:
        return HybridRetrieverBuilder()

    @property
    def streams(self) -> tuple[WeightedStream, ...]:
        return self._streams

    def retrieve(self, query: str, top_k: int) -> list[SearchResult]:
        """The fused ``top_k`` results for ``query``; an empty or blank query gives none."""
        check_top_k(top_k)
        if not check_query(query).strip():
            return []
        fused: dict[str, float] = {}
        best_rank: dict[str, int] = {}
        documents: dict[str, Document] = {}
        shaped = self._ranking is not None or any(w.kinds is not None for w in self._streams)
        shape = QueryShape.of(query) if shaped else None
        asked = [weighted for weighted in self._streams if weighted.asked_for(shape)]
        layer, plan = self._ranking, None
        if layer is not None:
            assert shape is not None
            plan = layer.plan(shape)
        views = _views_of_one_index(asked)
        if views is not None:
            ranking = None if layer is None or plan is None else (layer, plan)
            depth = candidate_depth(top_k)
            return fuse_views(views, query, depth, top_k, self._per_file_cap, ranking)
        rankings: list[tuple[float, list[SearchResult]]] = []
        for weighted in asked:
            try:
                rankings.append(
                    (weighted.weight, weighted.stream.search(query, candidate_depth(top_k)))
                )
            except Exception:
                log.exception("retrieval stream %r failed; skipping it", _stream_name(weighted))
        if plan is not None:
            # The looked-up rankings the slot path adds too (ragls.core.slot_fusion), as the
            # plan keeps them: quoted strings and frame lines where the kind weighs them, rare
            # identifiers.
            if plan.quoted:
                found = _from_code_stream(asked, "verbatim", plan.quoted, "verbatim")
                rankings.append((VERBATIM_WEIGHT, found))
            if plan.frame_lines:
                found = _from_code_stream(asked, "at_frames", plan.frame_lines, "frame")
                rankings.append((plan.weights.frames, found))
            for term in plan.identifiers:
                found = _from_code_stream(asked, "holding", term, "identifier")
                rankings.append((plan.weights.identifiers, found))
        for weight, results in rankings:
            seen: set[str] = set()
            for rank, result in enumerate(results):  # the hot loop: a few hundred per stream
                document = result.document
                document_id = document.id
                if document_id in seen:  # a stream repeating a document gets credit once
                    continue
                seen.add(document_id)
                contribution = weight / (RRF_K + rank + 1)  # rrf_contribution, inlined
                previous = fused.get(document_id)
                if previous is None:
                    fused[document_id] = contribution
                    best_rank[document_id] = rank
                    documents[document_id] = document
                else:
                    fused[document_id] = previous + contribution
                    if rank < best_rank[document_id]:
                        best_rank[document_id] = rank
        ordered = sorted(fused, key=lambda doc_id: (-fused[doc_id], best_rank[doc_id], doc_id))
        if layer is not None:
            candidates = [Candidate(documents[i], fused[i], best_rank[i]) for i in ordered]
            rescored = [(score, c.document) for score, c in layer.rerank(query, candidates, plan)]
        else:
            rescored = [(fused[i], documents[i]) for i in ordered]
        per_file: dict[str, int] = {}
        capped: list[SearchResult] = []
        for score, document in rescored:
            file = document.metadata.get(FILE_KEY)
            if file is not None:
                if per_file.get(file, 0) >= self._per_file_cap:
                    continue
                per_file[file] = per_file.get(file, 0) + 1
            capped.append(SearchResult(document, score))
            if len(capped) == top_k:
                break
        return capped


def _from_code_stream(
    asked: list[WeightedStream], method: str, argument: tuple[Any, ...] | str, what: str
) -> list[SearchResult]:
    """What the first asked stream that can say answers: a code stream's
    :meth:`~ragls.core.code_stream.CodeStream.verbatim` (the chunks holding the quoted strings),
    :meth:`~ragls.core.code_stream.CodeStream.at_frames` (those at a trace's frame lines) or
    :meth:`~ragls.core.code_stream.CodeStream.holding` (those holding a rare identifier)."""
    for weighted in asked:
        look_up = getattr(weighted.stream, method, None)
        if callable(look_up):
            try:
                found: list[SearchResult] = look_up(argument)
            except Exception:
                log.exception("%s look-up of %r failed; skipping it", what, _stream_name(weighted))
                return []
            return found
    return []


def _views_of_one_index(asked: list[WeightedStream]) -> list[tuple[CodeStream, float]] | None:
    """The asked streams as (view, weight) if they are all views of one code index."""
    views = [(w.stream, w.weight) for w in asked if isinstance(w.stream, CodeStream)]
    if not views or len(views) < len(asked):
        return None
    shared = views[0][0].shared
    return views if all(view.shared is shared for view, _ in views) else None


def _stream_name(weighted: WeightedStream) -> str:
    try:
        return str(weighted.stream.name)
    except Exception:
        return type(weighted.stream).__name__


class HybridRetrieverBuilder:
    """``HybridRetriever.builder().stream(s, 0.6).stream(t, 0.4).build()``."""

    def __init__(self) -> None:
        self._streams: list[tuple[RetrievalStream, float]] = []
        self._per_file_cap = PER_FILE_CAP

    def stream(self, stream: RetrievalStream, weight: float) -> HybridRetrieverBuilder:
        self._streams.append((stream, _check_weight(weight)))
        return self

    def per_file_cap(self, cap: int) -> HybridRetrieverBuilder:
        self._per_file_cap = cap
        return self

    def build(self) -> HybridRetriever:
        if not self._streams:
            raise ConfigurationError(
                "HybridRetriever.builder() has no streams; add one with .stream()"
            )
        return HybridRetriever(self._streams, per_file_cap=self._per_file_cap)

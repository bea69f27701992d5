"""SPEC §5's fusion for views of one code index, over slot arrays (docs/retrieval.md, "Cost").

The workspace pipeline asks one :class:`~ragls.core.code_stream.CodeStream` index twice (split
identifiers, whole identifiers), then the ranking layer, then the per-file cap. Done on
:class:`~ragls.core.documents.SearchResult` lists that meant a Python object, a dictionary
entry and a metadata look-up per candidate and stream. Here each view returns its ranking as
(slots, scores) arrays, the reciprocal rank fusion is a ``bincount`` over the slots, the ranking
layer reads the candidates' file and symbol from the index's per-slot tags
(:class:`~ragls.core.ranking.columns.Columns`), and Documents are touched only for the text the
layer reads (the first 40 candidates, when the query's rules read text) and for the answers.

The second view (whole identifiers) is not searched over the whole index: it ranks the first
view's best documents (up to :data:`VIEW_POOL` of those whose scores the first view computed
whole) and the documents holding a term the first view did not ask, looking its terms' postings
up at them (:meth:`~ragls.core.code_stream.CodeStream.ranked_within`). Its terms are the first
view's whole identifiers and plain words, so a document outside that pool scores low in both;
on the question set nDCG@10 was the same with the pool as without it (two questions moved),
and a search cost 0.71x at 4x the standard library (docs/retrieval.md, "Cost").

Otherwise the result is :class:`~ragls.core.fusion.HybridRetriever`'s general path: the same
contributions ``weight / (60 + rank + 1)`` summed in stream order, the same order (fused score,
best rank, id), the same layer and cap (``tests/core/test_slot_fusion.py`` compares the two on
a corpus smaller than the pool, where they are the same).
The index's lock is held from the first view's search to the answers, so every slot read
belongs to one version of the index.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.core.code_stream import FILE_TAG, SYMBOL_TAG, CodeStream
from ragls.core.documents import SearchResult
from ragls.core.frames import frame_slots
from ragls.core.postings import FloatArray, SlotArray
from ragls.core.pruning import order_by_score
from ragls.core.ranking.columns import NONE, Columns
from ragls.core.ranking.layer import RankingLayer, RankingPlan
from ragls.core.validation import most_specific
from ragls.core.verbatim import VERBATIM_WEIGHT, identifier_slots, verbatim_slots

log = logging.getLogger(__name__)

RRF_K = 60  # as ragls.core.fusion (SPEC §5)
# The later views of one index rank the first view's best documents (up to VIEW_POOL of those it
# scored whole) and those holding a term the first did not ask, not the whole index
# (docs/retrieval.md, "Cost").
VIEW_POOL = 1_000


def fuse_views(
    views: Sequence[tuple[CodeStream, float]],
    query: str,
    depth: int,
    top_k: int,
    per_file_cap: int,
    ranking: tuple[RankingLayer, RankingPlan] | None,
) -> list[SearchResult]:
    """The fused, reranked and capped ``top_k`` of ``views`` (all views of one index); the
    chunks holding the quoted strings the plan weighs are one more ranking
    (:mod:`ragls.core.verbatim`), those holding a pasted trace's frame lines another
    (:mod:`ragls.core.frames`), and those holding each rare identifier the query writes one
    more each (:func:`~ragls.core.verbatim.identifier_slots`)."""
    asked = []
    for view, weight in views:
        try:
            asked.append((view, weight, view.terms_for(query)))
        except Exception:
            log.exception("retrieval stream %r failed; skipping it", view.name)
    shared = views[0][0].shared
    with shared.lock:
        index = shared.index
        slot_parts: list[SlotArray] = []
        contribution_parts: list[npt.NDArray[np.floating[Any]]] = []
        rank_parts: list[npt.NDArray[np.int64]] = []

        def add_ranking(found: SlotArray, weight: float) -> None:
            """One more ranking (best first) in the fusion: ``weight / (60 + rank + 1)`` each."""
            ranks = np.arange(len(found), dtype=np.int64)
            slot_parts.append(found)
            contribution_parts.append(weight / (RRF_K + ranks + 1.0))
            rank_parts.append(ranks)

        pool: tuple[SlotArray, set[str]] | None = None  # the first view's best, its terms
        for view, weight, terms in asked:
            try:
                if pool is None:
                    size = VIEW_POOL if len(asked) > 1 else 0
                    found, _, pooled = view.ranked_slots(terms, depth, size)
                    pool = (pooled, set(most_specific(terms, index.document_frequency)))
                else:
                    found, _ = view.ranked_within(terms, depth, *pool)
            except Exception:
                log.exception("retrieval stream %r failed; skipping it", view.name)
                continue
            add_ranking(found, weight)
        if ranking is not None and ranking[1].quoted:
            add_ranking(verbatim_slots(index, shared.documents, ranking[1].quoted), VERBATIM_WEIGHT)
        if ranking is not None and ranking[1].frame_lines:
            plan = ranking[1]
            files = index.tags[:, FILE_TAG]
            found = frame_slots(index, shared.documents, shared.interner, files, plan.frame_lines)
            add_ranking(found, plan.weights.frames)
        if ranking is not None:
            for term in ranking[1].identifiers:
                add_ranking(identifier_slots(index, term), ranking[1].weights.identifiers)
        if not slot_parts or not sum(len(part) for part in slot_parts):
            return []
        candidates, inverse = np.unique(np.concatenate(slot_parts), return_inverse=True)
        # bincount adds in input order (stream order), as the general path's running sums do.
        fused: FloatArray = np.bincount(inverse, np.concatenate(contribution_parts)).astype(
            np.float64, copy=False
        )
        best_rank = np.full(len(candidates), np.iinfo(np.int64).max, np.int64)
        np.minimum.at(best_rank, inverse, np.concatenate(rank_parts))
        order = order_by_score(
            fused, best_rank, lambda positions: index.ids_at(candidates[positions])
        )
        slots = candidates[order]
        scores = fused[order]
        tags = index.tags[slots]
        documents = shared.documents
        if ranking is not None:
            layer, plan = ranking
            columns = Columns(
                scores=scores,
                best_ranks=best_rank[order],
                files=tags[:, FILE_TAG].astype(np.int64),
                symbols=tags[:, SYMBOL_TAG].astype(np.int64),
                interner=shared.interner,
                ids_of=lambda positions: index.ids_at(slots[positions]),
                texts_of=lambda count: [documents[i].content for i in index.ids_at(slots[:count])],
            )
            final, scores = layer.rerank_columns(plan, columns)
        else:
            final = np.arange(len(slots))
        answers: list[SearchResult] = []
        files = tags[:, FILE_TAG].tolist()
        per_file: dict[int, int] = {}
        for position in final.tolist():
            file = files[position]
            if file != NONE:  # SPEC §5: at most per_file_cap per file; no file, no cap
                held = per_file.get(file, 0)
                if held >= per_file_cap:
                    continue
                per_file[file] = held + 1
            document = documents[index.id_at(int(slots[position]))]
            answers.append(SearchResult(document, float(scores[position])))
            if len(answers) == top_k:
                break
        return answers

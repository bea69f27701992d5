"""Chunks that hold a quoted string verbatim, wherever BM25 ranks them (SPEC §10; the question
issue's "exact words are never buried").

A query that quotes a string (``error "All object keys must match" when posting``) asks for the
chunk that says exactly that. The ranking layer's ``quoted`` rule lifts such a chunk, but only
among the candidates the streams returned, and when every word of the string is common (object,
keys, match) the one chunk that holds the phrase can rank below hundreds that hold its words
more often. :func:`verbatim_slots` finds it directly: the live chunks whose body holds every
indexed term of the string (the postings intersected, rarest term first, each further term
by binary search in its postings), read in id order, at most :data:`VERBATIM_READS` of them,
and kept when their lower-cased text holds the lower-cased string; a string that more than
:data:`VERBATIM_MOST` chunks hold (`` `std` ``, ``'/users'``: a common fragment, whose chunks
in id order would crowd out the streams' ranking) finds nothing here. The retriever fuses them as
one more ranking (:data:`VERBATIM_WEIGHT`, in id order) before the ranking layer, so the rule
sees them. Only where the ranking layer weighs quoted strings for the query's kind (questions,
messages, traces; not changes), and for strings of at least :data:`VERBATIM_MIN_WORDS` words:
a message or a comment as printed, not a quoted name or example (`` `std` ``, ``'/users'``,
``'http://example.com:80'``, which the streams and the layer already weigh).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragls.core.documents import Document
from ragls.core.identifiers import IDENTIFIER, distinct, identifier_terms
from ragls.core.postings import InvertedIndex, SlotArray
from ragls.core.pruning import order_by_score

VERBATIM_READS = 256  # texts read per quoted string at most (those of the first ids)
VERBATIM_MOST = 8  # a string more chunks hold is a common fragment, not something to find
VERBATIM_MIN_WORDS = 3
# The fused weight of the verbatim ranking: 2 puts its first chunk above one that both views
# rank first (1 + 0.7), so the chunks that say the string reach the candidates whose text the
# ranking layer reads (the first 40), where its quoted rule lifts them.
VERBATIM_WEIGHT = 2.0
# A name the query writes as code (``UV_THREADPOOL_SIZE``, ``parseArgs``, `` `run` ``) that at
# most this many chunks hold is looked up directly (:func:`identifier_slots`).
IDENTIFIER_MOST = 8


def string_terms(text: str) -> list[str]:
    """The body terms a chunk holding ``text`` holds: each identifier's whole term, once (also
    the whole-identifier view's query terms before synonyms)."""
    found = (identifier_terms(identifier) for identifier in IDENTIFIER.findall(text))
    return distinct(terms[0] for terms in found if terms)


def verbatim_slots(
    index: InvertedIndex, documents: Mapping[str, Document], quoted: Sequence[str]
) -> SlotArray:
    """Slots of the live documents holding one of ``quoted`` (lower case) verbatim, ordered by
    document id (the caller holds the index's lock)."""
    found: dict[int, str] = {}
    for text in quoted:
        if len(text.split()) < VERBATIM_MIN_WORDS:
            continue
        terms = sorted(string_terms(text), key=index.document_frequency)
        if not terms or index.document_frequency(terms[0]) == 0:
            continue
        candidates = _holding_all(index, terms)
        ids = sorted((index.id_at(slot), slot) for slot in candidates.tolist())
        holding: dict[int, str] = {}
        for document_id, slot in ids[:VERBATIM_READS]:
            if text in documents[document_id].content.lower():
                holding[slot] = document_id
                if len(holding) > VERBATIM_MOST:  # a common fragment: the streams rank it
                    break
        if len(holding) <= VERBATIM_MOST:
            found.update(holding)
    ordered = sorted(found, key=found.__getitem__)
    return np.array(ordered, np.int32)


def whole_terms(names: Sequence[str]) -> list[str]:
    """The whole-identifier body term of each name (``UV_THREADPOOL_SIZE``:
    ``uv_threadpool_size``), once each."""
    return distinct(terms[0] for terms in map(identifier_terms, names) if terms)


def identifier_slots(index: InvertedIndex, term: str) -> SlotArray:
    """Slots of the live documents whose body holds ``term`` (a whole identifier's term), most
    occurrences first, then by id; none when more than :data:`IDENTIFIER_MOST` documents hold
    it (the caller holds the index's lock).

    A question that names a rare identifier among plain words ("where is the
    UV_THREADPOOL_SIZE environment variable read and how is it clamped?") is about the few
    chunks that say it; the split view scores it as its common parts (uv, threadpool, size)
    and the plain words can fill both views' first places with chunks that never say it. Fused
    as one more ranking, those chunks reach the candidates the ranking layer reads."""
    frequency = index.document_frequency(term)
    if not 0 < frequency <= IDENTIFIER_MOST:
        return np.zeros(0, np.int32)
    parts = [(slots, values) for slots, values in index.parts(term) if len(slots)]
    if not parts:
        return np.zeros(0, np.int32)
    slots = np.concatenate([part for part, _ in parts]).astype(np.int32, copy=False)
    counts = np.concatenate([np.asarray(values, np.float64) for _, values in parts])
    dead = index.dead_slots()
    if len(dead):
        live = ~np.isin(slots, dead)
        slots, counts = slots[live], counts[live]
    order = order_by_score(counts, None, lambda positions: index.ids_at(slots[positions]))
    return slots[order]


def _holding_all(index: InvertedIndex, terms: list[str]) -> SlotArray:
    """Live slots whose postings hold every one of ``terms`` (rarest first)."""
    candidates = np.unique(np.concatenate([slots for slots, _ in index.parts(terms[0])]))
    for term in terms[1:]:
        if not len(candidates):
            break
        keep = np.zeros(len(candidates), bool)
        for slots, _ in index.parts(term):
            if not len(slots):
                continue
            positions = np.minimum(np.searchsorted(slots, candidates), len(slots) - 1)
            keep |= slots[positions] == candidates
        candidates = candidates[keep]
    dead = index.dead_slots()
    if len(dead) and len(candidates):
        candidates = candidates[~np.isin(candidates, dead)]
    return candidates

"""CodeStream: BM25 over identifier sub-tokens with symbol and path fields (SPEC §10).

The third stream of the workspace pipeline. Each document is three fields, each analysed by
:mod:`ragls.core.identifiers`:

* ``body``: the content's identifiers, whole and split;
* ``symbol``: metadata ``symbol`` (``Flask.before_request``) and ``kind`` (``method``) of code
  chunks. A Markdown section's heading path is not a symbol field: the heading is already in
  the section's text, and counting it twice put README sections above the code a query was
  about (measured: mean MRR@10 over six repositories 0.527 with it, 0.563 without);
* ``path``: metadata ``file``'s directories and file stem.

A document's score is the sum over distinct query terms and fields of
``weight(field) * idf(field, term) * tf * (k1 + 1) / (tf + norm)``: per-field BM25 with its own
document frequencies, summed with field weights (a BM25F-style field model; the fields are
scored apart rather than merged into one pseudo term frequency, which keeps every contribution
bounded on its own and so lets the exact MaxScore pruning of :mod:`ragls.core.pruning` skip
long postings). The body is length-normalised (``b``); the symbol and path fields are short
and are not (``norm = k1``). The weights are search-time values (:meth:`CodeStream.view`), so
variants can be compared over one index; the defaults are the measured ones of
``docs/retrieval.md``.

All fields share one :class:`~ragls.core.postings.InvertedIndex` (and so one slot space): field
terms carry a one-character prefix. The stream is a complete index: no capacity, no expiry.

The index also keeps, per slot, the numbers of each chunk's file and symbol (its *tags*,
numbered by a :class:`~ragls.core.ranking.columns.Interner` when the chunk is indexed): what the
ranking layer reads of a candidate, so that the views of one index can be fused and reranked
over slot arrays (:mod:`ragls.core.slot_fusion`) without touching a Document per candidate.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np

from ragls.core.analyzer import SynonymTable
from ragls.core.batches import EncodedBatch, concatenate, encode, latest_by_id
from ragls.core.bm25 import bm25_idf
from ragls.core.documents import Document, SearchResult
from ragls.core.frames import frame_slots
from ragls.core.identifiers import (
    IDENTIFIER,
    code_term_counts,
    code_terms,
    distinct,
    identifier_terms,
    split_identifier,
)
from ragls.core.identifiers import path_terms as split_path
from ragls.core.index_state import StreamState
from ragls.core.postings import (
    FloatArray,
    InvertedIndex,
    LookedUp,
    SlotArray,
    ValueArray,
    restored_index,
    scaled,
)
from ragls.core.pruning import PruningStats, QueryTerm, best_first, ranked_slots, top_among
from ragls.core.ranking.columns import (
    NO_FAMILY,
    NONE,
    START_LINE_KEY,
    IntArray,
    Interner,
    says_generated,
)
from ragls.core.splits import SplitCache
from ragls.core.validation import MAX_STREAM_TOP_K, check_query, check_top_k, most_specific
from ragls.core.verbatim import identifier_slots, string_terms, verbatim_slots
from ragls.errors import InvalidArgumentError

SYMBOL_PREFIX = "\x01"
PATH_PREFIX = "\x02"
FIELD_PREFIXES = frozenset((SYMBOL_PREFIX, PATH_PREFIX))
# Documents analysed together by encode_documents (bounds its transient arrays).
SLICE_DOCUMENTS = 16_384
# Chunks of source code carry metadata format "code" (ragls.ingest.formats.DocumentFormat.CODE).
CODE_FORMAT = "code"
# A batch of more documents than this is encoded into arrays before the lock.
ENCODE_FROM_DOCUMENTS = 512
# Identifiers split while preparing are kept for the run, up to this many (then started over).
PREPARED_SPLITS = 1 << 18
# Every term a search looks up is kept for the next searches of the same index (WeighedTerms);
# those with at least this many postings keep their weighed postings too. The cache holds up
# to CACHE_BYTES, each look-up counted as CACHE_ENTRY_BYTES besides its weighed postings.
CACHE_MIN_POSTINGS = 2_048
CACHE_BYTES = 32 << 20
CACHE_ENTRY_BYTES = 512
# The index's tags per slot: the Interner numbers of the chunk's file and symbol.
FILE_TAG, SYMBOL_TAG = 0, 1
TAG_COUNT = 2
# A stored code stream's tags (one array per tag, by slot) and its generated files' numbers.
TAG_ARRAYS = ("tag-file", "tag-symbol")
GENERATED_ARRAY = "generated-files"
_NO_SLOTS: SlotArray = np.zeros(0, np.int32)


@dataclass(frozen=True, slots=True)
class FieldWeights:
    """The code stream's free parameters: field weights (0 leaves a field out) and BM25's."""

    body: float = 1.0
    symbol: float = 1.0
    path: float = 1.0
    k1: float = 1.2
    b: float = 0.75
    # Query whole identifiers only (``mergePath`` as ``mergepath``, not ``merge`` + ``path``):
    # the seed's whole-word signal from the same index (SPEC §10's "whole words" stream).
    whole_words: bool = False

    def __post_init__(self) -> None:
        for name in ("body", "symbol", "path", "k1", "b"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidArgumentError(f"field weight {name} must be a number")
            if not math.isfinite(value) or value < 0:
                raise InvalidArgumentError(f"field weight {name} must be >= 0, got {value!r}")
        if self.body == self.symbol == self.path == 0:
            raise InvalidArgumentError("at least one field weight must be positive")
        if self.b > 1:
            raise InvalidArgumentError(f"b must be between 0 and 1, got {self.b!r}")


# Kinds and common names repeat; most qualified symbols do not (on the standard library a cache
# of 16,384 entries held 10 MB after an index run for about half the calls answered; 4,096
# entries held 2.8 MB and answered 52,100 of 97,700 calls; 1,024 hold 0.7 MB and answer 51,800).
@lru_cache(maxsize=1 << 10)
def _symbol_terms(value: str) -> tuple[str, ...]:
    return tuple(SYMBOL_PREFIX + term for term in code_terms(value))


@lru_cache(maxsize=1 << 12)
def _path_terms(file: str) -> tuple[str, ...]:
    return tuple(PATH_PREFIX + term for term in split_path(file))


def field_term_list(document: Document) -> list[str]:
    """The prefixed symbol and path terms of ``document``, repeats included (cached by value:
    every chunk of a file shares its path, most kinds and many symbols repeat)."""
    terms: list[str] = []
    metadata = document.metadata
    if metadata.get("format", CODE_FORMAT) == CODE_FORMAT:
        for value in (metadata.get("symbol"), metadata.get("kind")):
            if value:
                terms.extend(_symbol_terms(value))
    file = metadata.get("file")
    if file:
        terms.extend(_path_terms(file))
    return terms


def document_fields(document: Document) -> tuple[Counter[str], float]:
    """(counts of body and prefixed field terms, body length) of ``document``."""
    counts = code_term_counts(document.content)
    length = float(sum(counts.values()))
    counts.update(field_term_list(document))
    return counts, length


def _split_key(key: str) -> tuple[str, ...]:
    """The terms of one key of a batch's identifier counts: a field term (prefixed) is one."""
    return (key,) if key[0] in FIELD_PREFIXES else split_identifier(key)


def _in_body(term: str) -> bool:
    return term[0] not in FIELD_PREFIXES


def new_split_cache() -> SplitCache:
    """A cache of split identifiers for :func:`encode_documents` (one per index run)."""
    return SplitCache(_split_key, _in_body)


def encode_documents(
    documents: Sequence[Document], split: SplitCache | None = None
) -> EncodedBatch:
    """:func:`document_fields` of many documents at once, as arrays: identifiers are counted per
    document in C, each distinct identifier is split once, and the expansion to terms (and
    the sums of terms reached from several identifiers) is done with numpy
    (:meth:`SplitCache.expand`). Slices bound the transient arrays. ``split``: identifiers
    already split (filled as identifiers are split), shared between calls."""
    slices = []
    if split is None:
        split = new_split_cache()  # each distinct identifier of the batch split once
    for first in range(0, len(documents), SLICE_DOCUMENTS):
        part = documents[first : first + SLICE_DOCUMENTS]

        def identifiers(
            part: Sequence[Document] = part,
        ) -> Iterator[tuple[str, Counter[str], float]]:
            for document in part:
                counts = Counter(IDENTIFIER.findall(document.content))
                counts.update(field_term_list(document))  # prefixed: no identifier is like one
                yield document.id, counts, 0.0

        slices.append(split.expand(encode(identifiers())))
    return concatenate(slices)


def query_terms(query: str, synonyms: SynonymTable | None) -> list[str]:
    """The query's distinct code terms, then their synonym partners (SPEC §2 step 4)."""
    terms = distinct(code_terms(query))
    table = SynonymTable.default() if synonyms is None else synonyms
    return table.expand(terms)


def whole_query_terms(query: str, synonyms: SynonymTable | None) -> list[str]:
    """The query's distinct whole identifiers as terms (each identifier's first term: itself,
    lowercased and stemmed), then their synonym partners."""
    table = SynonymTable.default() if synonyms is None else synonyms
    return table.expand(string_terms(query))


class CodeStream:
    """A retrieval stream over identifiers, symbols and paths (see the module docstring)."""

    def __init__(
        self,
        *,
        weights: FieldWeights | None = None,
        synonyms: SynonymTable | None = None,
        name: str = "code",
    ) -> None:
        self._state = _CodeIndex(synonyms)
        self._weights = weights or FieldWeights()
        self._name = name
        self.last_search = PruningStats()

    @property
    def name(self) -> str:
        return self._name

    @property
    def weights(self) -> FieldWeights:
        return self._weights

    @property
    def synonyms(self) -> SynonymTable | None:
        return self._state.synonyms

    @synonyms.setter
    def synonyms(self, table: SynonymTable | None) -> None:
        self._state.synonyms = table  # shared with every view

    def view(self, weights: FieldWeights, name: str | None = None) -> CodeStream:
        """A stream over the same index (and synonyms) that scores with other field weights."""
        other = CodeStream(weights=weights, name=name or self._name)
        other._state = self._state
        return other

    # -- writing -------------------------------------------------------------------------------

    def add(self, document: Document) -> None:
        self.replace_documents((), (document,))

    def remove(self, document_id: str) -> bool:
        with self._state.lock:
            removed = self._state.unindex(document_id)
            self._state.weighed_terms.changed(self._state.index)
            return removed

    def replace_documents(
        self, remove_ids: Iterable[str], add: Iterable[Document], analyzed: object = None
    ) -> None:
        """Remove ``remove_ids`` and add ``add`` as one atomic step (``analyzed`` is the other
        stores' analysis, which this stream's terms cannot use)."""
        removals = list(remove_ids)
        batch = list(latest_by_id(add).values())
        encoded = self._state.prepared.encode(batch, len(batch) > ENCODE_FROM_DOCUMENTS)
        prepared: list[tuple[str, Mapping[str, float], float]] = []
        if encoded is None:
            prepared = [(document.id, *document_fields(document)) for document in batch]
        state = self._state
        with state.lock:
            for document_id in removals:
                state.unindex(document_id)
            for document in batch:
                state.unindex(document.id)
                state.documents[document.id] = document
            if encoded is not None:
                state.index.add_encoded(encoded)
            else:
                state.index.add_many(prepared)
            state.tag(batch)
            # After a merge the kept terms hold the old arrays: let them go now rather than
            # at the next search.
            state.weighed_terms.changed(state.index)

    def prepare(
        self, documents: Sequence[Document], readable: Sequence[Document] | None = None
    ) -> None:
        """Encode ``documents`` now, ahead of the commit that will add them (an index run calls
        this while its worker processes still read files, so the analysis is not a serial step
        after them). A later :meth:`replace_documents` whose batch begins with prepared
        documents, in the order they were prepared, uses their encoding instead of encoding
        them again; the index does not change here. :meth:`drop_prepared` forgets what no
        commit used. ``readable``: the same documents (ids, texts, metadata) as they were
        before their texts went to the spill (:mod:`ragls.core.spill`), encoded instead of
        reading each text back from its file."""
        self._state.prepared.add(documents, readable)

    def drop_prepared(self) -> None:
        """Forget every prepared encoding (an index run calls this when it ends)."""
        self._state.prepared.clear()

    def clear(self) -> None:
        with self._state.lock:
            self._state.documents.clear()
            self._state.index.clear()
            self._state.interner = Interner()
            self._state.weighed_terms = WeighedTerms()

    def export_state(self) -> StreamState:
        """The stream as plain values (SPEC §11): its document ids and index."""
        with self._state.lock:
            index = self._state.index
            values, generated = self._state.interner.state()
            tags = index.tags[: index.slot_count]
            return StreamState(
                "code",
                list(self._state.documents),
                index.export_state(),
                arrays={
                    TAG_ARRAYS[0]: tags[:, FILE_TAG].copy(),
                    TAG_ARRAYS[1]: tags[:, SYMBOL_TAG].copy(),
                    GENERATED_ARRAY: np.array(generated, np.int32),
                },
                strings=values,
            )

    def restore_state(self, state: StreamState, documents: Mapping[str, Document]) -> None:
        """Hold what ``state`` describes (shared by every view), documents from ``documents``.
        KeyError/ValueError if they do not fit; nothing changes then. The per-slot tags and
        the values they number come from ``state`` when it keeps them (a generation stored
        since they are kept; older ones are tagged from the documents' metadata)."""
        index = restored_index(state, "code", tag_count=TAG_COUNT)
        held = {i: documents[i] for i in state.ids}
        interner = _restored_tags(state, index)
        with self._state.lock:
            self._state.documents, self._state.index = held, index
            self._state.forget_norms()
            self._state.interner = interner or Interner()
            self._state.weighed_terms = WeighedTerms()  # versions restart with a new index
            if interner is None:
                self._state.tag(held.values(), restored=True)

    # -- reading -------------------------------------------------------------------------------

    def get(self, document_id: str) -> Document | None:
        with self._state.lock:
            return self._state.documents.get(document_id)

    def __len__(self) -> int:
        with self._state.lock:
            return len(self._state.documents)

    def __contains__(self, document_id: object) -> bool:
        return isinstance(document_id, str) and self.get(document_id) is not None

    def document_count(self) -> int:
        return len(self._state.index)

    def family_counts(self) -> IntArray:
        """How many live chunks of each language family the index holds (by family number,
        NO_FAMILY last; ``ragls.core.ranking.rules.LANGUAGE_FAMILIES``, from each chunk's file
        extension): what the ranking layer's minority-language rule weighs. Counted once per
        version of the index (a pass over the chunks' file tags) and kept until a write."""
        state = self._state
        with state.lock:
            index = state.index
            key = (id(index), id(state.interner), index.version, index.layout)
            kept = state.family_counts
            if kept is not None and kept[0] == key:
                return kept[1]
            files = index.tags[: index.slot_count, FILE_TAG].astype(np.int64)
            families = state.interner.families_of(files)
            counts = np.bincount(families, minlength=NO_FAMILY + 1)
            dead = index.dead_slots()
            if len(dead):
                counts -= np.bincount(families[dead], minlength=NO_FAMILY + 1)
            state.family_counts = (key, counts)
            return counts

    def document_frequency(self, word: str) -> int:
        """How many documents hold ``word`` (one identifier, analysed as text is) in their
        body; 0 for a word the analyzer drops."""
        terms = identifier_terms(word)
        if not terms:
            return 0
        with self._state.lock:
            return self._state.index.document_frequency(terms[0])

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        """The ``top_k`` best documents for ``query``, best first; ties broken by id."""
        check_top_k(top_k, MAX_STREAM_TOP_K)
        terms = self.terms_for(query)
        if not terms:
            return []
        state = self._state
        with state.lock:
            slots, scores, _ = self.ranked_slots(terms, top_k)
            index, documents = state.index, state.documents
            return [
                SearchResult(documents[index.id_at(slot)], score)
                for slot, score in zip(slots.tolist(), scores.tolist(), strict=True)
            ]

    def verbatim(self, quoted: Sequence[str]) -> list[SearchResult]:
        """The documents holding one of ``quoted`` (lower case) verbatim, by id
        (:mod:`ragls.core.verbatim`); scores are 1."""
        state = self._state
        with state.lock:
            index, documents = state.index, state.documents
            slots = verbatim_slots(index, documents, quoted)
            return [SearchResult(documents[index.id_at(slot)], 1.0) for slot in slots.tolist()]

    def holding(self, term: str) -> list[SearchResult]:
        """The documents whose body holds ``term`` (a whole identifier's term) if few do, most
        occurrences first (:func:`~ragls.core.verbatim.identifier_slots`); scores are 1."""
        state = self._state
        with state.lock:
            index, documents = state.index, state.documents
            slots = identifier_slots(index, term)
            return [SearchResult(documents[index.id_at(slot)], 1.0) for slot in slots.tolist()]

    def at_frames(self, frame_lines: Sequence[tuple[str, int]]) -> list[SearchResult]:
        """The documents holding a pasted trace's frame lines, in frame order
        (:mod:`ragls.core.frames`); scores are 1."""
        state = self._state
        with state.lock:
            index, documents = state.index, state.documents
            files = index.tags[:, FILE_TAG]
            slots = frame_slots(index, documents, state.interner, files, frame_lines)
            return [SearchResult(documents[index.id_at(slot)], 1.0) for slot in slots.tolist()]

    @property
    def shared(self) -> _CodeIndex:
        """The index, documents and lock this stream's views share (read under ``lock``)."""
        return self._state

    def terms_for(self, query: str) -> list[str]:
        """The query's terms as this view asks them (no lock needed)."""
        if self._weights.whole_words:
            return whole_query_terms(check_query(query), self._state.synonyms)
        return query_terms(check_query(query), self._state.synonyms)

    def ranked_slots(
        self, terms: list[str], top_k: int, pool: int = 0
    ) -> tuple[SlotArray, FloatArray, SlotArray]:
        """(slots, scores) of the ``top_k`` best documents for ``terms`` (:meth:`terms_for`),
        best first, ties broken by id, and the slots of up to ``pool`` of the best whose scores
        the search computed (:func:`~ragls.core.pruning.top_and_pool`; what
        :meth:`ranked_within` takes). The caller holds ``shared.lock``."""
        index = self._state.index
        if not terms or len(index) == 0:
            return _NO_SLOTS, np.zeros(0), _NO_SLOTS
        terms = most_specific(terms, index.document_frequency)
        self.last_search = stats = PruningStats()
        return ranked_slots(self._query_terms(terms), index, top_k, stats, pool)

    def ranked_within(
        self, terms: list[str], top_k: int, pool: SlotArray, asked: Collection[str]
    ) -> tuple[SlotArray, FloatArray]:
        """:meth:`ranked_slots` among the documents of ``pool`` (ascending slots: another
        view's best) and those holding a term of ``terms`` that the other view did not ask
        (not in ``asked``): the terms' postings are looked up at those documents, never read
        whole. The caller holds ``shared.lock``."""
        index = self._state.index
        if not terms or len(index) == 0:
            return _NO_SLOTS, np.zeros(0)
        self.last_search = stats = PruningStats()
        own = [part for term in terms if term not in asked for part, _ in index.parts(term)]
        candidates = np.unique(np.concatenate([pool, *own])) if own else pool
        terms = most_specific(terms, index.document_frequency)
        slots, scores = top_among(
            self._query_terms(terms), candidates, index.dead_slots(), top_k, stats
        )
        return best_first(slots, scores, index, top_k)

    def _query_terms(self, terms: list[str]) -> list[QueryTerm]:
        """Each (term, field) pair with postings, weighted (lock held): the pairs not kept
        (:class:`WeighedTerms`, shared by the views) looked up together first."""
        weights = self._weights
        index = self._state.index
        count = len(index)
        k1, b = weights.k1, weights.b
        total = index.total_length
        average = total / count if total > 0 else 1.0
        fields = (("", weights.body), (SYMBOL_PREFIX, weights.symbol), (PATH_PREFIX, weights.path))
        cache = self._state.weighed_terms
        asked: list[tuple[str, str, float, _Entry | None]] = []
        for term in terms:
            for prefix, weight in fields:
                if weight != 0:
                    key = prefix + term
                    asked.append((key, prefix, weight, cache.get(key, index)))
        missing = [key for key, _, _, entry in asked if entry is None]
        looked_up = iter(index.look_up_many(missing) if missing else ())
        norms: FloatArray | None = None
        found: list[QueryTerm] = []
        for key, prefix, weight, entry in asked:
            if entry is None:
                entry = cache.put(key, index.version, next(looked_up))
            looked = entry.looked
            if looked is None:
                continue
            weighing = (weight, k1, b)
            # Only the body's weighing reads the lengths (the other fields are not
            # length-normalised): a write elsewhere that leaves the count keeps theirs.
            at_total = 0.0 if prefix else total
            kept = entry.weighings.get(weighing)
            if kept is None or kept.at_count != count or kept.at_total != at_total:
                if norms is None:
                    norms = self._state.norms(weights, average)
                kept = self._query_term(looked, weight, prefix, norms, average, at_total)
                cache.weigh(key, entry, weighing, kept)
            found.append(kept)
        return found

    def _query_term(
        self,
        looked: LookedUp,
        weight: float,
        prefix: str,
        norms: FloatArray,
        average: float,
        at_total: float,
    ) -> _KeptTerm:
        """A field's term (with postings ``looked``, the field's ``weight``) weighted as this
        view weighs it, at the index's present document count and ``average`` length (and,
        for the cache, ``at_total``: the total length it read, 0.0 if none)."""
        weights, index = self._weights, self._state.index
        k1 = weights.k1
        parts, frequency, largest, shortest = looked
        count = len(index)
        scale = weight * bm25_idf(count, frequency) * (k1 + 1.0)
        if prefix:
            bound = scale * largest / (largest + k1)
            return _KeptTerm(
                parts, _Saturation(scale, k1, None), bound, at_count=count, at_total=at_total
            )
        # The tf part grows with the count and shrinks with the length.
        shortest_norm = k1 * (1.0 - weights.b + weights.b * shortest / average)
        bound = scale * largest / (largest + shortest_norm)
        return _KeptTerm(
            parts, _Saturation(scale, k1, norms), bound, at_count=count, at_total=at_total
        )


class _Saturation:
    """BM25's weighing of one term's postings: ``scale * tf / (tf + k1)`` for a field the
    lengths do not weigh (``norms`` None), else ``scale * tf / (tf + norms[slot])``. An object
    of three slots rather than a closure (a function, its cell and its defaults): every term a
    search looks up for the first time keeps one in :class:`WeighedTerms`, and the fewer
    objects those leave behind, the less often the cyclic collector interrupts the searches
    right after a write (1x the standard library, 300 new queries: 22,400 objects kept, 39
    collections of the young objects and 3 of the middle generation in the pass)."""

    __slots__ = ("_k1", "_norms", "_scale")

    def __init__(self, scale: float, k1: float, norms: FloatArray | None) -> None:
        self._scale, self._k1, self._norms = scale, k1, norms

    def __call__(self, slots: SlotArray, tf: ValueArray) -> FloatArray:
        norms = self._norms
        if norms is None:
            return scaled(tf, self._scale) / np.add(tf, self._k1, dtype=np.float32)
        return scaled(tf, self._scale) / (tf + norms[slots])


@dataclass(slots=True)
class _KeptTerm(QueryTerm):
    """A :class:`~ragls.core.pruning.QueryTerm` as :class:`WeighedTerms` keeps it: made at
    document count ``at_count`` and total length ``at_total`` (0.0 for a field the lengths do
    not weigh), and the bytes of its weighed postings once kept."""

    at_count: int = 0
    at_total: float = 0.0
    kept_bytes: int = 0


_Weighing = tuple[float, float, float]  # (field weight, k1, b)


@dataclass(slots=True)
class _Entry:
    """A looked-up field term in :class:`WeighedTerms`: ``looked`` (None: no postings) as of
    index version ``version``, and its weighings by the views that asked it."""

    looked: LookedUp | None
    version: int
    weighings: dict[_Weighing, _KeptTerm] = field(default_factory=dict)

    def size(self) -> int:
        return CACHE_ENTRY_BYTES + sum(term.kept_bytes for term in self.weighings.values())


class WeighedTerms:
    """The field terms (field prefix + term) looked up lately, least recently used out past
    :data:`CACHE_BYTES`: each with its postings and statistics (or None without postings), its
    weighings by the views that asked it (the views of a stream share one cache: a word both
    ask is looked up once), and for the longest terms their weighed postings once a search
    read them whole. Words recur from query to query (of the 3,447 terms that 300 distinct
    queries over the standard library ask, 55% were asked by an earlier one), and the common
    ones' postings are what a search spends its time on.

    A write keeps what it did not change: an entry is confirmed, when next asked at a later
    version, by the index's :meth:`~ragls.core.postings.InvertedIndex.term_version` (a term
    the write did not touch keeps its postings and counts), and a weighing is made again only
    if the statistics it read moved (the document count; for the body, the total length). A
    merge renumbers every slot: it empties the cache (:meth:`changed`). Searches right after a
    one-file edit used to look every term up again (1x the standard library, a pass of 300
    queries after each edit: 0.12 -> 0.07 ms of look-ups a query, 1.58 -> 1.38 ms a search)."""

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self._budget = budget
        self._layout = -1
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def changed(self, index: InvertedIndex) -> None:
        """After a write to ``index``: a merge's renumbered slots (a new layout) empty the
        cache now, letting the old arrays go; otherwise entries are confirmed when asked."""
        if index.layout != self._layout:
            self.clear()
            self._layout = index.layout

    def get(self, key: str, index: InvertedIndex) -> _Entry | None:
        """``key``'s entry if ``index`` has not changed its postings since it was looked up."""
        if index.layout != self._layout:
            self.changed(index)
            return None
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.version != index.version:
            if index.term_version(key) > entry.version:
                self._drop(key)
                return None
            entry.version = index.version
        self._entries.move_to_end(key)
        return entry

    def put(self, key: str, version: int, looked: LookedUp | None) -> _Entry:
        """Keep a term just looked up (at :data:`CACHE_ENTRY_BYTES`)."""
        entry = _Entry(looked, version)
        if key not in self._entries:
            self._entries[key] = entry
            self._bytes += CACHE_ENTRY_BYTES
            self._trim()
        return entry

    def weigh(self, key: str, entry: _Entry, weighing: _Weighing, term: _KeptTerm) -> None:
        """Give ``entry`` its ``weighing``'s ``term``, letting go of the weighed postings of
        the one before; a term worth keeping keeps its weighed postings once a search reads
        them whole."""
        before = entry.weighings.get(weighing)
        if before is not None and self._entries.get(key) is entry:
            self._bytes -= before.kept_bytes
        entry.weighings[weighing] = term
        if term.size >= CACHE_MIN_POSTINGS:
            term.on_weighed = partial(self._weighed, key, entry, weighing)

    def _weighed(self, key: str, entry: _Entry, weighing: _Weighing, term: QueryTerm) -> None:
        """Count ``term``'s weighed postings (now filled) as kept, if it is still the entry's
        term for ``weighing``."""
        kept = entry.weighings.get(weighing)
        if self._entries.get(key) is not entry or kept is not term or kept.kept_bytes:
            return
        size = sum(part.nbytes for part in kept.weighed or ())
        if entry.size() + size > self._budget:  # too large to keep: looked up again
            self._drop(key)
            return
        kept.kept_bytes = size
        self._bytes += size
        self._trim()

    def _drop(self, key: str) -> None:
        self._bytes -= self._entries.pop(key).size()

    def _trim(self) -> None:
        while self._bytes > self._budget:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= dropped.size()

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)


class PreparedEncodings:
    """Encodings of documents made ahead of their commit (:meth:`CodeStream.prepare`), in the
    order they were prepared, with the identifier splits they made (kept for the next ones)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slices: deque[tuple[list[Document], EncodedBatch]] = deque()
        self._split = new_split_cache()
        self.documents_prepared = 0  # documents encoded by add
        self.documents_used = 0  # prepared documents a commit took instead of encoding them

    def add(
        self, documents: Sequence[Document], readable: Sequence[Document] | None = None
    ) -> None:
        """Encode ``documents`` (their texts read from ``readable``, the same documents with
        their texts in memory, when given) and keep the encoding for them."""
        batch = list(documents)
        if not batch:
            return
        if readable is not None and (
            len(readable) != len(batch)
            or any(a.id != b.id for a, b in zip(readable, batch, strict=True))
        ):
            raise ValueError("the readable documents are not the documents prepared")
        with self._lock:
            if len(self._split) > PREPARED_SPLITS:
                self._split = new_split_cache()
            split = self._split
        encoded = encode_documents(batch if readable is None else readable, split)
        with self._lock:
            self._slices.append((batch, encoded))
            self.documents_prepared += len(batch)

    def encode(self, batch: Sequence[Document], large: bool) -> EncodedBatch | None:
        """``encode_documents(batch)``, from the prepared slices its documents begin with (the
        same objects, in order) and an encoding of the rest; None if none was prepared and the
        batch is not ``large`` (a few documents go into the index one by one)."""
        used: list[EncodedBatch] = []
        position = 0
        with self._lock:
            while self._slices:
                documents, encoded = self._slices[0]
                end = position + len(documents)
                if end > len(batch) or any(
                    prepared is not given
                    for prepared, given in zip(documents, batch[position:end], strict=True)
                ):
                    break
                self._slices.popleft()
                used.append(encoded)
                position = end
            self.documents_used += position
            split = self._split if position else None  # a run's: its splits are reused
        if not used and not large:
            return None
        if position < len(batch):
            used.append(encode_documents(batch[position:], split))
        return concatenate(used)

    def clear(self) -> None:
        with self._lock:
            self._slices.clear()
            self._split = new_split_cache()

    def __len__(self) -> int:
        """Documents prepared and not yet used."""
        with self._lock:
            return sum(len(documents) for documents, _ in self._slices)


def _restored_tags(state: StreamState, index: InvertedIndex) -> Interner | None:
    """The interner of a stored code stream whose tags ``state`` keeps, its tags set in
    ``index``; None if ``state`` keeps none. ValueError if they do not fit the index."""
    arrays = state.arrays
    if not all(name in arrays for name in (*TAG_ARRAYS, GENERATED_ARRAY)):
        return None
    values = state.strings
    if not all(type(value) is str for value in values):
        raise ValueError("the code stream's interned values are not strings")
    files, symbols = (arrays[name] for name in TAG_ARRAYS)
    generated = arrays[GENERATED_ARRAY]
    count = index.slot_count
    for tags in (files, symbols, generated):
        if (
            tags.ndim != 1
            or tags.dtype.kind != "i"
            or (len(tags) and not NONE <= int(tags.min()) <= int(tags.max()) < len(values))
        ):
            raise ValueError("the code stream's stored tags do not fit its interned values")
    if len(files) != count or len(symbols) != count:
        raise ValueError(f"the code stream's stored tags are not one per slot ({count})")
    index.tags[:count, FILE_TAG] = files
    index.tags[:count, SYMBOL_TAG] = symbols
    known = np.unique(files)
    return Interner.restored(values, known[known != NONE].tolist(), np.unique(generated).tolist())


class _CodeIndex:
    """The index, documents and synonyms the views of one code stream share (``lock`` guards
    the index and documents)."""

    def __init__(self, synonyms: SynonymTable | None) -> None:
        self.synonyms = synonyms
        self.prepared = PreparedEncodings()
        self.lock = threading.Lock()
        # ((index, interner, version, layout), chunks per language family), as
        # CodeStream.family_counts last counted them
        self.family_counts: tuple[tuple[int, int, int, int], IntArray] | None = None
        self.documents: dict[str, Document] = {}
        self.index = InvertedIndex(tag_count=TAG_COUNT)
        self.interner = Interner()
        self.weighed_terms = WeighedTerms()
        self._norms: dict[tuple[float, float], tuple[int, FloatArray]] = {}

    def tag(self, documents: Iterable[Document], restored: bool = False) -> None:
        """Set the file and symbol tags of ``documents``' slots (after they were indexed), and
        whether each file whose first chunk is among them says it is generated; new files'
        roles and new symbols' keys are derived now, unless the documents are a ``restored``
        index's (:meth:`Interner.derive_roles`, :meth:`Interner.symbol_key_numbers`: about
        1.5 us a symbol once, where the first searches after a run each met a few hundred
        symbols not derived yet, 0.7 ms at p95 at 1x)."""
        index, interner = self.index, self.interner
        slots, rows = [], []
        for document in documents:
            slot = index.slot_of(document.id)
            if slot is not None:
                slots.append(slot)
                metadata = document.metadata
                row = interner.file_and_symbol(metadata)
                rows.append(row)
                # A file's first chunk starts at line 1: it holds the header.
                if row[0] != NONE and metadata.get(START_LINE_KEY) == "1":
                    interner.mark_generated(row[0], says_generated(document.content))
        if slots:
            index.tags[slots] = rows
            if not restored:
                interner.symbol_key_numbers(np.array([row[1] for row in rows], np.int64))
        interner.derive_roles(now=not restored)

    def unindex(self, document_id: str) -> bool:
        document = self.documents.pop(document_id, None)
        if document is None:
            return False
        self.index.remove(document_id, lambda: list(document_fields(document)[0]))
        return True

    def forget_norms(self) -> None:
        self._norms = {}

    def norms(self, weights: FieldWeights, average_length: float) -> FloatArray:
        """k1 * (1 - b + b * dl / avgdl) of every slot, once per index version and weights."""
        index = self.index
        key = (weights.k1, weights.b)  # views with other parameters keep their own
        cached = self._norms.get(key)
        if cached is None or cached[0] != index.version:
            lengths = index.lengths[: index.slot_count]
            norms = weights.k1 * (1.0 - weights.b + weights.b * lengths / average_length)
            self._norms[key] = cached = (index.version, norms)
        return cached[1]

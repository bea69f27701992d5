"""Documents encoded as flat arrays before they enter an index (a large commit's staging form).

The two stores index different terms of the same text: the knowledge base the steps 1-2 terms,
BM25 their stems (SPEC §2, §4). A large commit analyses each document once
(:func:`analyze_documents`) and derives BM25's batch from it (:func:`stem_batch`: one stem per
distinct term of the batch, and the counts of terms sharing a stem within a document summed
with numpy), instead of tokenizing everything twice.

Analysing a large batch into one dict of term counts per document holds every dict at once: for
55,000 chunks that is about 150 MB of short-lived objects, which fragment the heap and raise the
peak RSS for the life of the process. :func:`encode` consumes the analysis one document at a time
and keeps only a local vocabulary and three arrays (local term id, value, postings per
document: 12 bytes a posting). It runs outside the stores' locks; the index maps the local
vocabulary to its own term ids under the lock, one lookup per distinct term.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragls.core.analyzer import plain_term_counts, stem_uncached
from ragls.core.documents import Document


@dataclass(frozen=True, slots=True)
class EncodedBatch:
    ids: list[str]
    lengths: list[float]
    vocabulary: list[str]  # local term id -> term
    terms: npt.NDArray[np.int32]  # local term id of each posting, documents in order
    values: npt.NDArray[np.float32]  # each posting's raw value
    sizes: npt.NDArray[np.int32]  # postings of each document

    def __len__(self) -> int:
        return len(self.ids)


def numbering() -> defaultdict[str, int]:
    """A dict that gives each new key the next number (0, 1, ...) when it is first looked up.
    Its factory is its own ``__len__``: a reference cycle, which :func:`numbered` breaks."""
    numbers: defaultdict[str, int] = defaultdict()
    numbers.default_factory = numbers.__len__  # called before the key is inserted
    return numbers


def numbered(numbers: defaultdict[str, int]) -> list[str]:
    """The keys of a finished :func:`numbering`, in number order. The numbering is closed (no
    factory): left as a cycle, a batch's vocabulary (megabytes) stays until the cyclic
    collector's next full pass finds it, and longer while an index run keeps the process's
    objects from the collector (ragls.ingest.indexer)."""
    numbers.default_factory = None
    return list(numbers)


def encode(items: Iterable[tuple[str, Mapping[str, float], float]]) -> EncodedBatch:
    """Encode (id, values by term, length) documents; each mapping is dropped once read."""
    local = numbering()
    ids: list[str] = []
    lengths: list[float] = []
    terms, values, sizes = array("i"), array("f"), array("i")
    number = local.__getitem__
    for document_id, counts, length in items:
        terms.extend(map(number, counts))  # numbers new terms as it meets them, in C
        values.extend(counts.values())
        sizes.append(len(counts))
        ids.append(document_id)
        lengths.append(length)
    vocabulary = numbered(local)
    return EncodedBatch(
        ids,
        lengths,
        vocabulary,
        np.frombuffer(terms, np.int32),
        np.frombuffer(values, np.float32),
        np.frombuffer(sizes, np.int32),
    )


def analyze_documents(documents: Sequence[Document]) -> EncodedBatch:
    """The steps 1-2 term counts of ``documents``, in order; a document's length is its number
    of terms (what BM25 counts)."""

    def analysed() -> Iterable[tuple[str, Mapping[str, float], float]]:
        for document in documents:
            counts = plain_term_counts(document.content)
            yield document.id, counts, float(sum(counts.values()))

    return encode(analysed())


def latest_by_id(documents: Iterable[Document]) -> dict[str, Document]:
    """The documents by id; a repeated id counts once, at its last position (as adding the
    documents one by one would leave them)."""
    latest: dict[str, Document] = {}
    for document in documents:
        latest.pop(document.id, None)
        latest[document.id] = document
    return latest


def describes(analyzed: EncodedBatch | None, additions: list[Document], unique: int) -> bool:
    """Whether ``analyzed`` is the analysis of exactly ``additions``, which hold ``unique``
    distinct ids (a batch repeating an id is analysed again by the store)."""
    return (
        analyzed is not None
        and unique == len(additions)
        and analyzed.ids == [document.id for document in additions]
    )


def stem_batch(plain: EncodedBatch) -> EncodedBatch:
    """``plain`` (from :func:`analyze_documents`) with every term stemmed (SPEC §2 step 3)."""
    stems = numbering()
    mapping = np.fromiter(map(stems.__getitem__, map(stem_uncached, plain.vocabulary)), np.int32)
    vocabulary = numbered(stems)
    terms = mapping[plain.terms]
    values, sizes = plain.values, plain.sizes
    if len(vocabulary) < len(plain.vocabulary):
        # Only terms whose stem is shared by another term can repeat within a document: sum
        # those (keyed by document and stem), leave the rest as they are.
        shared = np.bincount(mapping, minlength=len(vocabulary))[terms] > 1
        if shared.any():
            starts = np.zeros(len(sizes) + 1, np.int64)
            np.cumsum(sizes, out=starts[1:])

            def documents_of(positions: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
                return np.searchsorted(starts, positions, side="right") - 1

            positions = np.flatnonzero(shared)
            keys = documents_of(positions) * len(vocabulary) + terms[positions]
            unique, inverse = np.unique(keys, return_inverse=True)
            summed = np.bincount(inverse, weights=values[positions]).astype(np.float32)
            del keys, inverse, positions
            alone = np.flatnonzero(~shared)
            all_documents = np.concatenate([documents_of(alone), unique // len(vocabulary)])
            all_terms = np.concatenate([terms[alone], (unique % len(vocabulary))])
            all_values = np.concatenate([values[alone], summed])
            order = np.argsort(all_documents, kind="stable")
            terms = all_terms[order].astype(np.int32)
            values = all_values[order]
            sizes = np.bincount(all_documents, minlength=len(sizes)).astype(np.int32)
    return EncodedBatch(plain.ids, plain.lengths, vocabulary, terms, values, sizes)


def tail(batch: EncodedBatch, count: int) -> EncodedBatch:
    """The batch's last ``count`` documents."""
    if count >= len(batch):
        return batch
    first = len(batch) - count
    start = int(batch.sizes[:first].sum())
    return EncodedBatch(
        batch.ids[first:],
        batch.lengths[first:],
        batch.vocabulary,
        batch.terms[start:],
        batch.values[start:],
        batch.sizes[first:],
    )


def concatenate(batches: Sequence[EncodedBatch]) -> EncodedBatch:
    """One batch of every document of ``batches``, in order, over one vocabulary."""
    if len(batches) == 1:
        return batches[0]
    numbers = numbering()
    ids: list[str] = []
    lengths: list[float] = []
    terms, values, sizes = [], [], []
    for batch in batches:
        local = np.fromiter(map(numbers.__getitem__, batch.vocabulary), np.int32)
        terms.append(local[batch.terms] if len(batch.terms) else batch.terms)
        values.append(batch.values)
        sizes.append(batch.sizes)
        ids.extend(batch.ids)
        lengths.extend(batch.lengths)
    return EncodedBatch(
        ids,
        lengths,
        numbered(numbers),
        np.concatenate(terms).astype(np.int32),
        np.concatenate(values),
        np.concatenate(sizes),
    )

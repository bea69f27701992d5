"""Documents encoded as flat arrays before they enter an index (a large commit's staging form).

Analysing a large batch into one dict of term counts per document holds every dict at once: for
55,000 chunks that is about 150 MB of short-lived objects, which fragment the heap and raise the
peak RSS for the life of the process. :func:`encode` consumes the analysis one document at a time
and keeps only a local vocabulary and three arrays (local term id, value, postings per
document: 12 bytes a posting). It runs outside the stores' locks; the index maps the local
vocabulary to its own term ids under the lock, one lookup per distinct term.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


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


def encode(items: Iterable[tuple[str, Mapping[str, float], float]]) -> EncodedBatch:
    """Encode (id, values by term, length) documents; each mapping is dropped once read."""
    local: dict[str, int] = {}
    vocabulary: list[str] = []
    ids: list[str] = []
    lengths: list[float] = []
    terms, values, sizes = array("i"), array("f"), array("i")
    get = local.get
    for document_id, counts, length in items:
        found = list(map(get, counts))
        if None in found:
            for position, term in enumerate(counts):
                if found[position] is None:
                    found[position] = local[term] = len(vocabulary)
                    vocabulary.append(term)
        terms.extend(found)  # type: ignore[arg-type]
        values.extend(counts.values())
        sizes.append(len(found))
        ids.append(document_id)
        lengths.append(length)
    return EncodedBatch(
        ids,
        lengths,
        vocabulary,
        np.frombuffer(terms, np.int32),
        np.frombuffer(values, np.float32),
        np.frombuffer(sizes, np.int32),
    )

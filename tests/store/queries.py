"""Parity queries drawn from a corpus: a few hundred, deterministic, most with matches."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ragls.core.documents import Document

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def sampled_queries(documents: Sequence[Document], count: int, seed: int = 5) -> list[str]:
    """``count`` queries of 1-4 consecutive words (identifiers kept whole) from random
    documents of ``documents``, in a fixed order for a given corpus and seed."""
    rng = random.Random(seed)
    ordered = sorted(documents, key=lambda document: document.id)
    found: list[str] = []
    while len(found) < count:
        words = _WORD.findall(rng.choice(ordered).content)
        if not words:
            continue
        start = rng.randrange(len(words))
        found.append(" ".join(words[start : start + rng.randint(1, 4)]))
    return found

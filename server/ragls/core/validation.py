"""Argument checks shared by every public search entry point.

The bounds are ours (the SPEC leaves them open): ``top_k`` from 1 to :data:`MAX_TOP_K` (100, more
than any prompt can use) for callers, and up to :data:`MAX_STREAM_TOP_K` for a single stream;
queries of at most :data:`MAX_QUERY_CHARS` characters (64 KiB: an assistant pastes a whole issue,
tracebacks included) of which each stream scores at most :data:`MAX_QUERY_TERMS` distinct terms,
the most specific ones (fewest documents hold them; :func:`most_specific`), so the work per
request stays bounded however long the query is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragls.errors import InvalidArgumentError

MAX_TOP_K = 100
# Streams are asked for more than a caller's top_k (fusion asks each for max(200, 2 x top_k)),
# so their own
# ceiling is higher; it still bounds the work and the size of one answer.
MAX_STREAM_TOP_K = 1_000
MAX_QUERY_CHARS = 65_536
MAX_QUERY_TERMS = 256


def check_top_k(top_k: object, maximum: int = MAX_TOP_K) -> int:
    """Return ``top_k`` if it is an integer in [1, maximum], else raise naming the bound."""
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise InvalidArgumentError(f"top_k must be an integer, got {type(top_k).__name__}")
    if not 1 <= top_k <= maximum:
        raise InvalidArgumentError(f"top_k must be between 1 and {maximum}, got {top_k}")
    return top_k


def check_query(query: object) -> str:
    """Return ``query`` if it is a string of at most MAX_QUERY_CHARS characters."""
    if not isinstance(query, str):
        raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgumentError(
            f"query is {len(query)} characters long; the maximum is {MAX_QUERY_CHARS}"
        )
    return query


def most_specific(
    terms: Sequence[str], frequency: Callable[[str], int], limit: int = MAX_QUERY_TERMS
) -> list[str]:
    """``terms`` if there are at most ``limit``; else the ``limit`` held by the fewest documents
    (terms no document holds are dropped first), in their original order."""
    if len(terms) <= limit:
        return list(terms)
    held = [(frequency(term), position, term) for position, term in enumerate(terms)]
    kept = sorted(item for item in held if item[0] > 0)[:limit]
    return [term for _, _, term in sorted(kept, key=lambda item: item[1])]

"""An index run's split identifiers, kept as arrays (ragls.core.splits)."""

from __future__ import annotations

from ragls.core.batches import encode
from ragls.core.code_stream import new_split_cache
from ragls.core.identifiers import split_identifier
from ragls.core.splits import SplitCache


def _expanded(cache: SplitCache, documents: dict[str, dict[str, float]]) -> list[dict[str, float]]:
    batch = cache.expand(encode((key, counts, 0.0) for key, counts in documents.items()))
    found, position = [], 0
    for size in batch.sizes.tolist():
        span = range(position, position + size)
        found.append({batch.vocabulary[batch.terms[i]]: float(batch.values[i]) for i in span})
        position += size
    return found


def _by_hand(counts: dict[str, float]) -> dict[str, float]:
    expected: dict[str, float] = {}
    for identifier, count in counts.items():
        for term in split_identifier(identifier):
            expected[term] = expected.get(term, 0.0) + count
    return expected


def test_each_identifier_is_split_once_for_every_batch_after() -> None:
    calls: list[str] = []

    def splitter(identifier: str) -> tuple[str, ...]:
        calls.append(identifier)
        return split_identifier(identifier)

    cache = SplitCache(splitter, lambda term: True)
    first = {"a": {"parseHeader": 2.0, "header": 1.0}, "b": {"raw_value": 1.0}}
    second = {"c": {"header": 3.0, "parseHeader": 1.0, "fooBar": 1.0}}
    assert _expanded(cache, first) == [_by_hand(counts) for counts in first.values()]
    (header,) = split_identifier("header")
    assert _expanded(cache, first)[0][header] == 3.0  # reached from two identifiers
    assert sorted(calls) == ["header", "parseHeader", "raw_value"]
    assert _expanded(cache, second) == [_by_hand(second["c"])]
    assert calls[3:] == ["fooBar"] and len(cache) == 4  # only the new one split


def test_lengths_count_body_terms_and_the_vocabulary_is_what_the_batch_uses() -> None:
    cache = new_split_cache()
    _expanded(cache, {"a": {"zebraCorn": 1.0}})
    batch = cache.expand(encode([("b", {"getName": 2.0, "\x01handler": 1.0}, 0.0)]))
    body = split_identifier("getName")
    assert sorted(batch.vocabulary) == sorted(["\x01handler", *body])
    assert batch.lengths == [2.0 * len(body)]  # the symbol field counts toward no length
    assert set(split_identifier("zebraCorn")) <= set(cache.terms)  # kept for the run

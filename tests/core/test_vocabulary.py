"""An inverted index's terms held in arrays (ragls.core.vocabulary)."""

from __future__ import annotations

import random

import pytest

from ragls.core import vocabulary as vocabulary_module
from ragls.core.vocabulary import Vocabulary


def test_terms_are_numbered_in_order_of_first_sight_across_settlings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(vocabulary_module, "SETTLE_TERMS", 8)  # settle every few writes
    rng = random.Random(5)
    words = [f"w{n}" for n in range(300)] + ["straße", "\x01symbol", "naïve", "日本"]
    vocabulary, reference = Vocabulary(), {}
    for _ in range(60):
        batch = [*rng.sample(words, rng.randint(1, 12)), "w1"]  # "w1" may come twice
        for term in batch:
            reference.setdefault(term, len(reference))
        assert vocabulary.number(batch) == [reference[term] for term in batch]
    assert len(vocabulary) == len(reference)
    assert vocabulary.terms() == list(reference)
    asked = [*words, "absent", ""]
    assert vocabulary.get_many(asked) == [reference.get(term) for term in asked]
    assert [vocabulary.get(term) for term in asked] == [reference.get(term) for term in asked]
    vocabulary.number(["new after export"])  # still numbers after terms() settled it
    assert vocabulary.get("new after export") == len(reference)


def test_terms_found_lately_are_answered_from_a_bounded_dict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(vocabulary_module, "RECENT_TERMS", 4)
    vocabulary = Vocabulary()
    words = [f"word{n}" for n in range(6000)]
    vocabulary.number(words)
    for _ in range(2):
        assert [vocabulary.get(word) for word in words[::7]] == list(range(0, 6000, 7))
    assert len(vocabulary._recent) <= 4
    assert vocabulary.get("absent") is None and "absent" not in vocabulary._recent


def test_a_restored_vocabulary_is_the_one_exported_and_refuses_a_repeated_term() -> None:
    original = Vocabulary()
    original.number(["alpha", "beta", "gamma"])
    restored = Vocabulary.restored(original.terms())
    assert restored.terms() == ["alpha", "beta", "gamma"]
    assert restored.get_many(["gamma", "alpha", "delta"]) == [2, 0, None]
    assert restored.number(["delta", "beta"]) == [3, 1]
    with pytest.raises(ValueError, match="repeat"):
        Vocabulary.restored(["alpha", "beta", "alpha"])
    assert Vocabulary.restored([]).terms() == []


def test_the_vocabulary_keeps_no_object_per_settled_term() -> None:
    """Settled terms live in arrays and joined strings: no dict entry, string or int each."""
    vocabulary = Vocabulary()
    vocabulary.number([f"term{n}" for n in range(20_000)])
    pending = vocabulary._pending  # the few numbered since the last settling, at most
    assert len(pending) <= vocabulary_module.SETTLE_TERMS
    assert len(vocabulary._pieces) <= 2

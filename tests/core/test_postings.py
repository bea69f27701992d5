"""The segmented inverted index: delta and base segments, dead slots, merges, and searches that
touch only their terms' postings."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ragls.core import postings
from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.core.postings import InvertedIndex, scaled, top_slots


def _pairs(index: InvertedIndex, term: str) -> list[tuple[str, float]]:
    return sorted(
        (index.id_at(int(slot)), float(value))
        for slots, values in index.parts(term)
        for slot, value in zip(slots, values, strict=True)
        if int(slot) not in set(index.dead_slots().tolist())
    )


def test_single_adds_go_to_the_delta_and_removals_drop_their_postings() -> None:
    index = InvertedIndex()
    index.add("a", {"x": 1.0, "y": 2.0}, 3.0)
    index.add("b", {"x": 5.0}, 1.0)
    assert _pairs(index, "x") == [("a", 1.0), ("b", 5.0)]
    assert index.document_frequency("x") == 2
    assert index.remove("a", lambda: ["x", "y"]) is True
    assert index.parts("y") == []
    assert index.document_frequency("x") == 1
    assert index.total_length == 1.0
    assert index.remove("a", lambda: []) is False
    assert index.delta_postings == 1


def test_a_large_batch_becomes_the_base_and_removals_there_mark_slots_dead() -> None:
    index = InvertedIndex()
    items = [(f"d{i}", {"common": 1.0, f"t{i}": 2.0}, 2.0) for i in range(30_000)]
    index.add_many(items)
    assert index.base_postings == 60_000 and index.delta_postings == 0
    [(slots, _values)] = index.parts("common")
    assert np.all(slots[1:] > slots[:-1])  # ascending: searches binary-search them
    assert index.remove("d7", lambda: ["common", "t7"])
    assert index.document_frequency("common") == 29_999
    assert index.document_frequency("t7") == 0
    assert index.dead_slots().tolist() == [7]
    assert index.slot_of("d7") is None
    assert len(index) == 29_999


def test_a_merge_drops_dead_postings_and_renumbers_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings, "MERGE_FLOOR_SLOTS", 4)
    monkeypatch.setattr(postings, "BULK_POSTINGS", 10)
    index = InvertedIndex()
    index.add_many([(f"d{i}", {"w": float(i + 1), f"only{i}": 1.0}, 1.0) for i in range(12)])
    layout = index.layout
    for i in range(0, 12, 2):
        index.remove(f"d{i}", lambda i=i: ["w", f"only{i}"])
    assert index.layout > layout  # the dead passed a quarter of the live: merged
    assert index.slot_count < 12  # slots renumbered: the merged-away ones are gone
    assert len(index) == 6
    assert _pairs(index, "w") == sorted((f"d{i}", float(i + 1)) for i in range(1, 12, 2))
    assert index.value_bounds("w")[0] == 12.0


def test_slots_of_replaced_documents_are_not_reused_before_a_merge() -> None:
    index = InvertedIndex()
    index.add("a", {"x": 1.0}, 1.0)
    index.remove("a", lambda: ["x"])
    index.add("a", {"x": 3.0}, 1.0)
    assert index.slot_of("a") == 1
    assert _pairs(index, "x") == [("a", 3.0)]


def test_top_slots_keep_ties_at_the_boundary() -> None:
    scores = np.array([0.0, 3.0, 1.0, 1.0, 2.0])
    assert sorted(top_slots(scores, 2)) == [1, 4]
    assert sorted(top_slots(scores, 3)) == [1, 2, 3, 4]  # both 1.0s tie for third
    assert top_slots(np.zeros(3), 2) == []


@pytest.fixture
def many_documents() -> list[Document]:
    return [Document(f"d{i}", f"common word{i} filler{i % 7} alpha") for i in range(500)]


def test_a_bm25_search_reads_only_the_postings_of_its_terms(many_documents: list[Document]) -> None:
    stream = BM25Stream()
    stream.replace_documents((), many_documents)
    stream.search("filler3 word7", 5)
    # filler3 is in 71 documents, word7 in one; "common" and "alpha" (in all 500) are not read.
    assert stream.last_search.postings_scored == 71 + 1


def test_a_tfidf_search_reads_only_its_terms_postings(many_documents: list[Document]) -> None:
    kb = InMemoryKnowledgeBase()
    kb.replace_documents((), many_documents)
    kb.search("filler3 word7", 5)
    assert kb.last_search.postings_scored == 71 + 1


def test_replacing_one_document_in_a_large_base_costs_that_document() -> None:
    """A save: the base arrays stay as they are (no merge, no copy); only the delta grows."""
    index = InvertedIndex()
    index.add_many([(f"d{i}", {"common": 1.0, f"t{i}": 2.0}, 2.0) for i in range(30_000)])
    base_slots, layout = index.parts("common")[0][0], index.layout
    index.remove("d9", lambda: ["common", "t9"])
    index.add("d9", {"common": 3.0, "t9": 1.0, "fresh": 1.0}, 5.0)
    assert index.layout == layout and np.shares_memory(index.parts("common")[0][0], base_slots)
    assert index.delta_postings == 3 and index.document_frequency("common") == 30_000
    assert _pairs(index, "fresh") == [("d9", 1.0)]


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (lambda s: s.base_slots.__setitem__(0, -5), "a negative slot"),
        (lambda s: s.base_offsets.__setitem__(1, s.base_offsets[2] + 1), "offsets that go back"),
        (lambda s: s.frequencies.__setitem__(0, -1), "a negative document frequency"),
        (lambda s: s.lengths.__setitem__(0, float("nan")), "lengths that are not finite"),
        (  # a float32 base (whole counts are held as uint16, which cannot be infinite)
            lambda s: object.__setattr__(
                s, "base_values", np.full(len(s.base_values), np.inf, np.float32)
            ),
            "base_values that are not finite",
        ),
        (lambda s: s.dead.append("x"), "a removed slot that is not a slot"),
        (lambda s: s.terms.__setitem__(0, 7), "a term that is not a string"),
    ],
)
def test_a_state_no_index_could_have_written_is_refused(damage: object, named: str) -> None:
    """Parts whose sizes fit but whose values cannot be (a forged or damaged generation, its
    checksums written again) loaded, and then every search failed: refused now, so the stored
    generation is rebuilt from the files."""
    index = InvertedIndex()
    index.add_many([(f"d{i}", {"common": 1.0, f"t{i}": 2.0}, 2.0) for i in range(30_000)])
    index.remove("d7", lambda: ["common", "t7"])
    state = index.export_state()
    InvertedIndex().restore_state(state)  # the state as written loads
    damage(state)  # type: ignore[operator]
    with pytest.raises(ValueError, match=named):
        InvertedIndex().restore_state(state)


def test_whole_counts_are_held_as_uint16_and_weigh_as_the_float32_they_were() -> None:
    """A base of whole counts below 65,536 (BM25's) is held as uint16; fractional values (the
    knowledge base's tf weights) stay float32; a float32 base (a generation stored before)
    restores and scores the same."""
    counts = InvertedIndex()
    counts.add_many(
        [(f"d{i}", {"common": 1.0, f"t{i % 7}": float(i % 300)}, 2.0) for i in range(3_000)]
    )
    fractions = InvertedIndex()
    fractions.add_many([(f"d{i}", {"common": 0.5, f"t{i % 7}": 1.25}, 2.0) for i in range(3_000)])
    state = counts.export_state()
    assert state.base_values.dtype == np.uint16
    assert fractions.export_state().base_values.dtype == np.float32
    as_before = dataclasses.replace(state, base_values=state.base_values.astype(np.float32))
    restored = InvertedIndex()
    restored.restore_state(as_before)
    for term in ("common", "t3"):
        for (slots, held), (same_slots, before) in zip(
            counts.parts(term), restored.parts(term), strict=True
        ):
            assert held.dtype == np.uint16 and before.dtype == np.float32
            assert np.array_equal(slots, same_slots)
            for scale in (0.1, 1.7, 3.3333):
                assert np.array_equal(scaled(held, scale), scale * before)
                assert scaled(held, scale).dtype == (scale * before).dtype
        assert counts.value_bounds(term) == restored.value_bounds(term)


def _one_by_one(index: InvertedIndex, term: str) -> object:
    parts = index.parts(term)
    if not parts:
        return None
    listed = [(slots.tolist(), values.tolist()) for slots, values in parts]
    return listed, index.document_frequency(term), *index.value_bounds(term)


def test_terms_looked_up_together_read_what_each_read_alone_does() -> None:
    index = InvertedIndex()
    words = ["common", "rare", "gone", "late"]
    index.add_many(
        [(f"d{i}", {"common": 1.0 + i % 3, f"t{i}": 2.0}, 2.0 + i % 5) for i in range(30_000)]
    )
    index.add("x1", {"common": 7.0, "rare": 1.0}, 1.0)  # delta postings beside the base
    index.add("x2", {"late": 2.0, "gone": 1.0}, 4.0)  # terms numbered after the merge
    index.remove("x2", lambda: ["late", "gone"])
    index.add("x3", {"late": 3.0}, 9.0)
    index.remove("d4", lambda: ["common", "t4"])  # a dead base slot
    asked = [*words, "t4", "t5", "nosuchterm", "rare"]
    expected = [_one_by_one(index, term) for term in asked]
    found = [
        None if item is None else ([(s.tolist(), v.tolist()) for s, v in item[0]], *item[1:])
        for item in index.look_up_many(asked)
    ]
    assert found == expected
    assert found[asked.index("gone")] is None and found[asked.index("nosuchterm")] is None
    assert InvertedIndex().look_up_many(["a", "b"]) == [None, None]


def test_frequencies_and_offsets_are_4_bytes_and_a_state_of_8_byte_ones_still_loads() -> None:
    index = InvertedIndex()
    index.add_many([(f"d{i}", {"common": 1.0, f"t{i % 50}": 2.0}, 2.0) for i in range(3_000)])
    state = index.export_state()
    assert state.frequencies.dtype == np.int32 and state.base_offsets.dtype == np.int32
    wide = dataclasses.replace(
        state,
        frequencies=state.frequencies.astype(np.int64),
        base_offsets=state.base_offsets.astype(np.int64),
    )
    restored = InvertedIndex()
    restored.restore_state(wide)
    for term in ("common", "t7", "absent"):
        assert _one_by_one(restored, term) == _one_by_one(index, term)
    restored.add("new", {"t7": 1.0}, 1.0)
    assert restored.document_frequency("t7") == index.document_frequency("t7") + 1

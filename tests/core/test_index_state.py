"""Exported stream states restore streams that answer exactly as the originals (SPEC §11)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragls.core.bm25 import BM25Stream
from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document
from ragls.core.index_state import IndexState, StreamState
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.core.postings import InvertedIndex

WORDS = "parse render token stream index query fuse cache socket retry timeout buffer".split()
QUERIES = ["parse token", "render stream", "cache retry timeout", "socketBuffer", "fuse index q"]


def corpus(count: int, seed: int = 3) -> list[Document]:
    rng = random.Random(seed)
    return [
        Document(
            f"d{i}",
            " ".join(rng.choice(WORDS) + rng.choice(["", "Name", "_value"]) for _ in range(12)),
            {"file": f"src/{rng.choice(WORDS)}/{i % 7}.py", "symbol": rng.choice(WORDS)},
        )
        for i in range(count)
    ]


def edited(stream: BM25Stream | CodeStream | InMemoryKnowledgeBase) -> None:
    """A merged base (a large batch), then a delta and dead base slots (small edits)."""
    documents = corpus(1500)
    stream.replace_documents((), documents)
    changes = corpus(40, seed=9)
    stream.replace_documents([f"d{i}" for i in range(0, 200, 3)], changes[:20])
    stream.replace_documents((), [Document("d5", "parse parse token", {"file": "a.py"})])


def answers(stream: BM25Stream | CodeStream | InMemoryKnowledgeBase) -> list[object]:
    return [[(r.id, round(r.score, 9)) for r in stream.search(q, 20)] for q in QUERIES]


def documents_of(stream: BM25Stream | CodeStream | InMemoryKnowledgeBase) -> dict[str, Document]:
    found = {}
    for document in [*corpus(1500), *corpus(40, seed=9), Document("d5", "parse parse token")]:
        held = stream.get(document.id)
        if held is not None:
            found[held.id] = held
    return found


@pytest.mark.parametrize("make", [BM25Stream.unbounded, CodeStream, InMemoryKnowledgeBase])
def test_a_restored_stream_answers_as_the_exported_one(make: type) -> None:
    original = make()
    edited(original)
    expected = answers(original)
    state = original.export_state()
    assert state.index is not None and len(state.index.dead) > 0
    assert len(state.index.delta_slots) > 0
    restored = make()
    restored.restore_state(state, documents_of(original))
    assert answers(restored) == expected
    assert len(restored) == len(original)


def test_the_state_splits_into_arrays_and_objects_and_back() -> None:
    original = CodeStream()
    edited(original)
    state = original.export_state()
    assert state.index is not None
    arrays, objects = state.index.parts()
    assert all(isinstance(array, np.ndarray) for array in arrays.values())
    copied = {name: array.copy() for name, array in arrays.items()}
    rebuilt = StreamState("code", state.ids, IndexState.from_parts(copied, objects))
    restored = CodeStream()
    restored.restore_state(rebuilt, documents_of(original))
    assert answers(restored) == answers(original)


def test_a_restored_index_keeps_changing_correctly() -> None:
    """Edits after a restore (delta, removals, a merge) score as the same edits on the original."""
    original, restored = BM25Stream.unbounded(), BM25Stream.unbounded()
    edited(original)
    restored.restore_state(original.export_state(), documents_of(original))
    for stream in (original, restored):
        stream.replace_documents(["d7", "d8"], corpus(30, seed=21))
        stream.replace_documents((), corpus(1500, seed=5))  # a bulk batch forces a merge
    assert answers(restored) == answers(original)


def test_an_inconsistent_state_is_refused_and_changes_nothing() -> None:
    stream = CodeStream()
    edited(stream)
    before = answers(stream)
    state = stream.export_state()
    assert state.index is not None
    broken = StreamState("code", state.ids[:-1], state.index)
    with pytest.raises(ValueError, match="disagree"):
        CodeStream().restore_state(broken, documents_of(stream))
    cut = IndexState.from_parts(
        {**state.index.parts()[0], "base_slots": state.index.base_slots[:-1]},
        state.index.parts()[1],
    )
    with pytest.raises(ValueError, match="do not fit"):
        InvertedIndex().restore_state(cut)
    with pytest.raises(ValueError, match="cannot restore"):
        BM25Stream.unbounded().restore_state(state, documents_of(stream))
    with pytest.raises(KeyError):
        stream.restore_state(state, {})
    assert answers(stream) == before


def test_a_deferred_knowledge_base_restores_its_documents_without_an_index() -> None:
    original = InMemoryKnowledgeBase(index_on_demand=True)
    edited(original)
    state = original.export_state()
    assert state.index is None
    restored = InMemoryKnowledgeBase(index_on_demand=True)
    restored.restore_state(state, documents_of(original))
    assert not restored.indexed
    assert [d.id for d in restored.list()] == [d.id for d in original.list()]
    assert answers(restored) == answers(original)


def test_clear_and_restore_keep_the_version_growing() -> None:
    """Streams cache length norms by the index version: a clear or a restore must not restart
    the versions, or a rebuilt index could meet norms cached for an older one."""
    index = InvertedIndex()
    index.add("a", {"x": 1.0}, 1.0)
    state = index.export_state()
    before = index.version
    index.clear()
    assert index.version > before
    before = index.version
    index.restore_state(state)
    assert index.version > before

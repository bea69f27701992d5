"""The semantic stream (ragls.core.semantic): background embedding, search, stored vectors.

A small deterministic embedder stands in for the model here (words hashed into 16 buckets), so
these tests check the stream's own work; tests/service/test_semantic_pipeline.py runs the real
model through the service."""

from __future__ import annotations

import threading
import zlib

import numpy as np
import numpy.typing as npt
import pytest

from ragls.core.documents import Document
from ragls.core.semantic import SemanticStream, embedded_text

WAIT = 30.0


class HashingEmbedder:
    """Unit vectors of hashed words; ``gate`` (when set) holds the stream's background calls
    (not a search's) until released."""

    def __init__(self, name: str = "hashing", dimensions: int = 16) -> None:
        self._name = name
        self._dimensions = dimensions
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.texts: list[str] = []
        self.fail = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if threading.current_thread() is not threading.main_thread():
            self.entered.set()
            if self.gate is not None:
                self.gate.wait(WAIT)
        if self.fail:
            raise RuntimeError("model exploded")
        self.texts += texts
        out = np.zeros((len(texts), self._dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, zlib.crc32(word.encode()) % self._dimensions] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


def chunk(i: str, content: str, file: str | None = None) -> Document:
    return Document(i, content, {"file": file} if file else {})


def ids(stream: SemanticStream, query: str, k: int = 10) -> list[str]:
    return [result.id for result in stream.search(query, k)]


def test_chunks_are_queued_then_found_nearest_first() -> None:
    embedder = HashingEmbedder()
    embedder.gate = threading.Event()
    stream = SemanticStream(embedder)
    stream.replace_documents((), [chunk("a", "alpha beta"), chunk("b", "gamma delta")])
    assert embedder.entered.wait(WAIT)
    status = stream.status()
    assert (status.embedded, status.pending, len(stream)) == (0, 2, 2)
    assert stream.search("alpha beta", 5) == []  # nothing embedded yet: absent, not wrong
    embedder.gate.set()
    assert stream.wait(WAIT)
    status = stream.status()
    assert (status.embedded, status.pending, status.computed) == (2, 0, 2)
    assert ids(stream, "alpha beta")[0] == "a"
    assert ids(stream, "gamma delta")[0] == "b"
    assert stream.search("   ", 5) == []


def test_only_new_and_changed_chunks_are_embedded() -> None:
    embedder = HashingEmbedder()
    stream = SemanticStream(embedder)
    stream.replace_documents((), [chunk(str(i), f"word{i} common") for i in range(50)])
    assert stream.wait(WAIT)
    embedder.texts.clear()
    stream.replace_documents(["3"], [chunk("3", "word3 changed")])
    assert stream.wait(WAIT)
    assert embedder.texts == ["word3 changed"]
    assert stream.status().embedded == 50 and len(stream) == 50


def test_a_chunk_removed_while_its_batch_is_embedded_does_not_come_back() -> None:
    embedder = HashingEmbedder()
    embedder.gate = threading.Event()
    stream = SemanticStream(embedder)
    stream.replace_documents((), [chunk("a", "alpha"), chunk("b", "beta")])
    assert embedder.entered.wait(WAIT)
    assert stream.remove("a")
    stream.replace_documents(["b"], [chunk("b", "gamma")])  # b replaced mid-batch
    embedder.gate.set()
    assert stream.wait(WAIT)
    assert "a" not in ids(stream, "alpha")
    found = stream.search("gamma", 5)
    assert [r.document.content for r in found] == ["gamma"]  # the new text's vector, not beta's
    assert stream.status().embedded == 1


def test_freed_rows_are_reused() -> None:
    stream = SemanticStream(HashingEmbedder())
    for round_ in range(5):
        stream.replace_documents(
            [f"{round_ - 1}-{i}" for i in range(600)],
            [chunk(f"{round_}-{i}", f"text {i} round {round_}") for i in range(600)],
        )
        assert stream.wait(WAIT)
    assert stream.status().embedded == 600
    assert stream.capacity <= 1_024


def test_vectors_survive_export_and_restore_without_embedding_again() -> None:
    first = SemanticStream(HashingEmbedder())
    documents = {str(i): chunk(str(i), f"topic{i} shared words", f"f{i}.py") for i in range(40)}
    first.replace_documents((), documents.values())
    assert first.wait(WAIT)
    state = first.export_state()

    embedder = HashingEmbedder()
    second = SemanticStream(embedder)
    later = dict(documents, new=chunk("new", "a chunk written after the save"))
    second.restore_state(state, later)
    assert second.wait(WAIT)
    assert embedder.texts == [embedded_text(later["new"])]  # only what the state lacked
    assert ids(second, "written after the save")[0] == "new"
    assert [(r.id, round(r.score, 6)) for r in second.search("topic7 shared", 5)] == [
        (r.id, round(r.score, 6)) for r in first.search("topic7 shared", 5)
    ]


def test_vectors_of_another_model_are_not_used() -> None:
    first = SemanticStream(HashingEmbedder("model-a"))
    documents = {str(i): chunk(str(i), f"text {i}") for i in range(5)}
    first.replace_documents((), documents.values())
    assert first.wait(WAIT)
    embedder = HashingEmbedder("model-b")
    second = SemanticStream(embedder)
    second.restore_state(first.export_state(), documents)
    assert second.wait(WAIT)
    assert len(embedder.texts) == 5


def test_stored_vectors_that_do_not_fit_their_ids_are_refused() -> None:
    first = SemanticStream(HashingEmbedder())
    documents = {str(i): chunk(str(i), f"text {i}") for i in range(5)}
    first.replace_documents((), documents.values())
    assert first.wait(WAIT)
    state = first.export_state()
    cut = type(state)(
        state.kind,
        state.ids,
        None,
        state.counters,
        {"vectors": state.arrays["vectors"][:-3], "scales": state.arrays["scales"]},
        state.model,
    )
    with pytest.raises(ValueError, match="do not fit"):
        SemanticStream(HashingEmbedder()).restore_state(cut, documents)


def test_a_failing_model_stops_embedding_and_never_hangs_a_waiter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    embedder = HashingEmbedder()
    embedder.fail = True
    stream = SemanticStream(embedder)
    stream.replace_documents((), [chunk("a", "alpha")])
    assert stream.wait(WAIT)
    status = stream.status()
    assert status.pending == 0 and status.failure == "embedding failed: model exploded"
    assert stream.search("alpha", 3) == []
    assert "embedding failed" in caplog.text


def test_the_callback_runs_when_the_queue_drains() -> None:
    drained = threading.Event()
    stream = SemanticStream(HashingEmbedder(), on_embedded=drained.set)
    stream.replace_documents((), [chunk("a", "alpha")])
    assert drained.wait(WAIT)


def test_a_chunk_is_embedded_with_its_file_and_symbol() -> None:
    document = Document("x", "body text", {"file": "pkg/auth.py", "symbol": "check_token"})
    assert embedded_text(document) == "pkg/auth.py check_token\nbody text"
    assert embedded_text(Document("y", "added text")) == "added text"

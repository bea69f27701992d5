"""The semantic stream: cosine similarity over static embeddings, computed in the background.

A chunk's vector is the embedding (:mod:`ragls.models.static`) of its file, its symbol and its
text (:func:`embedded_text`); a query's is the embedding of the query. Search ranks every
embedded chunk by the dot product of the two unit vectors, best first, and keeps the chunks
with a positive score.

Embedding is never on the path of a commit: :meth:`SemanticStream.replace_documents` only
queues the new chunks and returns, and a worker thread embeds the queue in batches, installing
each batch under the stream's lock. Until a chunk is embedded it is simply absent from this
stream's answers; the lexical streams still find it. :attr:`SemanticStream.pending` says how
many chunks wait, :meth:`SemanticStream.wait` waits for the queue to drain, and the
``on_embedded`` callback runs each time it has drained (the service saves the generation then,
so the vectors are stored with it). Removing or replacing a chunk while its batch is being
embedded is safe: a vector is installed only if its chunk is still the one queued.

Vectors are held as int8 with one float scale per chunk (256 bytes + 4 per chunk instead of
1,024 for float32; on the question set the ranking is the same to three decimals), in one
matrix of a row per dimension and a column per chunk that grows to fit what is queued, with
freed columns reused.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ragls.core.documents import Document, SearchResult
from ragls.core.index_state import StreamState

log = logging.getLogger(__name__)

KIND = "semantic"
_BATCH = 256  # chunks embedded per turn: the lock is free between turns
_INITIAL_ROWS = 1_024


@dataclass(frozen=True, slots=True)
class SemanticStatus:
    """The semantic stream's embeddings: ``embedded`` chunks have a vector, ``pending`` wait
    for one (they are found by the lexical streams meanwhile); ``computed`` vectors were made
    since the stream was (those loaded with a stored generation are not); ``failure`` says why
    the model stopped, if it did (the stream then answers nothing)."""

    model: str
    embedded: int
    pending: int
    computed: int
    failure: str | None = None


class Embedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


def embedded_text(document: Document) -> str:
    """What a chunk is embedded as: its file and symbol on a first line, then its text."""
    metadata = document.metadata
    head = " ".join(v for v in (metadata.get("file"), metadata.get("symbol")) if v)
    return f"{head}\n{document.content}" if head else document.content


def quantized(
    vectors: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Rows as int8 and the scale that brings each back (``row ≈ q * scale``)."""
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    rows = np.rint(vectors / scales[:, None]).astype(np.int8)
    return rows, scales


class SemanticStream:
    """A retrieval stream over embeddings (see the module docstring)."""

    _rows: dict[str, int]  # embedded chunk id -> row
    _documents: list[Document | None]  # row -> its chunk (None: a free row)
    _columns: npt.NDArray[np.int8]  # dimensions x rows
    _scales: npt.NDArray[np.float32]  # row -> its vector's scale
    _free: list[int]  # rows to reuse
    _pending: dict[str, Document]  # chunks waiting for a vector, oldest first

    def __init__(
        self,
        embedder: Embedder,
        *,
        on_embedded: Callable[[], None] | None = None,
    ) -> None:
        self._embedder = embedder
        self._dimensions = embedder.dimensions
        self.on_embedded = on_embedded
        self._lock = threading.Lock()
        self._drained = threading.Condition(self._lock)
        self._clear_locked()
        self._worker: threading.Thread | None = None
        self._computed = 0  # vectors computed since the stream was made
        self.failure: str | None = None  # why the model stopped (the stream then answers [])

    @property
    def name(self) -> str:
        return KIND

    @property
    def model(self) -> str:
        return self._embedder.name

    # -- the corpus ---------------------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows) + len(self._pending)

    @property
    def capacity(self) -> int:
        """Rows allocated (embedded chunks and free rows): freed rows are reused first."""
        with self._lock:
            return len(self._documents)

    def status(self) -> SemanticStatus:
        """Embedded and pending chunks (a batch being embedded stays pending until installed)."""
        with self._lock:
            return SemanticStatus(
                self.model, len(self._rows), len(self._pending), self._computed, self.failure
            )

    def replace_documents(
        self, remove_ids: Iterable[str], add: Iterable[Document], analyzed: Any = None
    ) -> None:
        """Drop ``remove_ids`` and queue ``add`` for embedding (``analyzed`` is not used)."""
        with self._lock:
            for document_id in remove_ids:
                self._drop(document_id)
            for document in add:
                self._drop(document.id)
                self._pending[document.id] = document
            self._start_worker()

    def add(self, document: Document) -> None:
        self.replace_documents((), (document,))

    def remove(self, document_id: str) -> bool:
        with self._lock:
            return self._drop(document_id)

    def clear(self) -> None:
        with self._lock:
            self._clear_locked()
            self._drained.notify_all()

    def _drop(self, document_id: str) -> bool:
        """Forget ``document_id`` (lock held); True if the stream held it."""
        if self._pending.pop(document_id, None) is not None:
            return True
        row = self._rows.pop(document_id, None)
        if row is None:
            return False
        self._documents[row] = None
        self._scales[row] = 0.0
        self._free.append(row)
        return True

    # -- the background worker ----------------------------------------------------------------

    def _start_worker(self) -> None:
        if self._pending and (self._worker is None or not self._worker.is_alive()):
            self._worker = threading.Thread(
                target=self._embed_pending, name="ragls-embed", daemon=True
            )
            self._worker.start()

    def _embed_pending(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._worker = None
                    self._drained.notify_all()
                    break
                batch = list(itertools.islice(self._pending.values(), _BATCH))
            try:
                vectors = self._embedder.embed([embedded_text(d) for d in batch])
            except Exception as error:
                log.exception("embedding failed; the semantic stream stops embedding")
                with self._lock:  # a failing model must not spin: the queue is dropped
                    self.failure = f"embedding failed: {error}"
                    self._pending.clear()
                    self._worker = None
                    self._drained.notify_all()
                return
            rows, scales = quantized(vectors)
            with self._lock:
                for document, row, scale in zip(batch, rows, scales, strict=True):
                    if self._pending.get(document.id) is document:
                        del self._pending[document.id]
                        self._install(document, row, float(scale))
                self._computed += len(batch)
        callback = self.on_embedded
        if callback is not None:
            callback()

    def _install(self, document: Document, vector: npt.NDArray[np.int8], scale: float) -> None:
        """Put ``document``'s vector in a free row (lock held)."""
        if not self._free:
            self._grow()
        row = self._free.pop()
        self._columns[:, row] = vector
        self._scales[row] = scale
        self._documents[row] = document
        self._rows[document.id] = row

    def _grow(self) -> None:
        old = len(self._documents)
        # Room for everything queued (a first index queues the whole corpus) and an eighth more.
        size = max(_INITIAL_ROWS, old + len(self._pending) + old // 8)
        columns = np.zeros((self._dimensions, size), dtype=np.int8)
        columns[:, :old] = self._columns
        scales = np.zeros(size, dtype=np.float32)
        scales[:old] = self._scales
        self._columns, self._scales = columns, scales
        self._documents.extend([None] * (size - old))
        self._free.extend(range(size - 1, old - 1, -1))

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every queued chunk is embedded; False if ``timeout`` passed first."""
        with self._lock:
            return self._drained.wait_for(
                lambda: not self._pending and self._worker is None, timeout
            )

    # -- search -------------------------------------------------------------------------------

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        """The embedded chunks nearest to ``query``, best first (positive scores only)."""
        if top_k <= 0 or not query.strip() or self.failure is not None:
            return []
        target = self._embedder.embed([query])[0]
        if not target.any():
            return []
        with self._lock:  # vectors are written in place: score under the lock (it is quick)
            count = len(self._documents)
            scores = np.zeros(count, dtype=np.float32)
            widened = np.empty(count, dtype=np.float32)
            columns = self._columns
            for dimension, weight in enumerate(target):
                np.multiply(columns[dimension, :count], weight, out=widened)
                scores += widened
            scores *= self._scales[:count]
            keep = min(top_k, count)
            if keep == 0:
                return []
            best = np.argpartition(-scores, keep - 1)[:keep]
            best = best[np.argsort(-scores[best], kind="stable")]
            found = [(self._documents[int(row)], float(scores[row])) for row in best]
        return [
            SearchResult(document, score)
            for document, score in found
            if document is not None and score > 0
        ]

    # -- persistence --------------------------------------------------------------------------

    def export_state(self) -> StreamState:
        """The embedded chunks' vectors (queued chunks are left out: a load queues them again)."""
        with self._lock:
            ids = list(self._rows)
            rows = np.fromiter(self._rows.values(), dtype=np.intp, count=len(ids))
            vectors = np.ascontiguousarray(self._columns[:, rows].T).reshape(-1).view(np.uint8)
            scales = self._scales[rows].copy()
        return StreamState(
            KIND,
            ids,
            None,
            {"dimensions": self._dimensions},
            arrays={"vectors": vectors, "scales": scales},
            model=self.model,
        )

    def restore_state(self, state: StreamState | None, documents: Mapping[str, Document]) -> None:
        """Take the vectors of ``state`` for the chunks of ``documents`` it covers (when it was
        made by this model, with these dimensions) and queue the rest for embedding. Raises
        ValueError when the stored arrays do not fit their ids."""
        usable = (
            state is not None
            and state.model == self.model
            and state.counters.get("dimensions") == self._dimensions
        )
        with self._lock:
            self._clear_locked()
            if usable:
                assert state is not None
                vectors = np.asarray(state.arrays["vectors"])
                scales = np.asarray(state.arrays["scales"], dtype=np.float32)
                if vectors.dtype != np.uint8 or scales.ndim != 1 or vectors.ndim != 1:
                    raise ValueError("the stored vectors have the wrong type")
                if len(scales) != len(state.ids) or len(vectors) != len(scales) * self._dimensions:
                    raise ValueError("the stored vectors do not fit their ids")
                matrix = vectors.view(np.int8).reshape(len(scales), self._dimensions)
                kept = [i for i, document_id in enumerate(state.ids) if document_id in documents]
                self._columns = np.ascontiguousarray(matrix[kept].T)
                self._scales = scales[kept].copy()
                self._documents = [documents[state.ids[i]] for i in kept]
                self._rows = {state.ids[i]: row for row, i in enumerate(kept)}
            for document_id, document in documents.items():
                if document_id not in self._rows:
                    self._pending[document_id] = document
            self._start_worker()

    def _clear_locked(self) -> None:
        """The empty stream (lock held, or from the constructor)."""
        self._rows = {}
        self._documents = []
        # One row per dimension, one column per chunk: scoring walks the dimensions, widening
        # one contiguous int8 row at a time (as fast as a float32 matrix-vector product here,
        # at a quarter of its memory).
        self._columns = np.zeros((self._dimensions, 0), dtype=np.int8)
        self._scales = np.zeros(0, dtype=np.float32)
        self._free = []
        self._pending = {}

"""The stores one session searches: its knowledge base and the streams its pipelines need.

:class:`SessionStreams` keeps the knowledge base (TF-IDF, SPEC §4) and whichever of the BM25
stream, the code stream and the semantic stream the session's pipelines use, builds a
retriever for any pipeline over them, switches pipelines without re-reading a file (a stream
that is needed is built from the stored chunks, one that is not is dropped), and exports and
restores the streams' state for a stored generation (SPEC §11). Locking is the caller's:
:class:`ragls.service.rag_service.RagService` holds its commit lock around changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ragls.core.analyzer import SynonymTable
from ragls.core.bm25 import BM25Stream
from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document, IndexedStream
from ragls.core.fusion import HybridRetriever, StreamSpec
from ragls.core.index_state import StreamState
from ragls.core.knowledge_base import InMemoryKnowledgeBase, KnowledgeBaseStream
from ragls.core.ranking.layer import RankingLayer
from ragls.core.semantic import KIND as SEMANTIC
from ragls.core.semantic import SemanticStatus, SemanticStream
from ragls.errors import InvalidArgumentError
from ragls.service.memory import LARGE_COMMIT_CHUNKS, release_free_memory
from ragls.service.pipelines import Pipeline
from ragls.service.status import coverage_warnings


class SessionStreams:
    """The knowledge base and the streams of ``served`` pipelines (see the module docstring)."""

    def __init__(
        self,
        served: Sequence[Pipeline],
        *,
        knowledge_base: InMemoryKnowledgeBase | None = None,
        bm25: BM25Stream | None = None,
        on_embedded: Callable[[], None] | None = None,
    ) -> None:
        """A ``bm25`` passed in is kept whatever the pipelines; ``on_embedded`` runs each time
        the semantic stream's queue drains."""
        # TF-IDF is indexed on first use when no pipeline served searches it (SPEC §4's store
        # holds the documents either way).
        self.knowledge_base = (
            knowledge_base
            if knowledge_base is not None
            else InMemoryKnowledgeBase(index_on_demand=all(p.tfidf == 0 for p in served))
        )
        self.synonyms: SynonymTable | None = None
        self._on_embedded = on_embedded
        self._trimmed_at = 0
        self.bm25 = bm25
        if bm25 is None and any(p.bm25 > 0 for p in served):
            self.bm25 = BM25Stream.unbounded()
        self.code: CodeStream | None = None
        if any(p.uses_code for p in served):
            self.code = CodeStream(weights=served[0].fields)
        self.semantic: SemanticStream | None = None
        if any(p.semantic > 0 for p in served):
            self.semantic = self._new_semantic()

    def _new_semantic(self) -> SemanticStream:
        from ragls.models.static import shared_embedder

        self._trimmed_at = 0  # the new stream's count of vectors computed starts at 0
        return SemanticStream(shared_embedder(), on_embedded=self._drained)

    def _drained(self) -> None:
        """The semantic stream's queue drained: after many vectors, the embedding's scratch
        memory goes back to the system (as after a large commit); then the owner hears."""
        semantic = self.semantic
        computed = 0 if semantic is None else semantic.status().computed
        if computed - self._trimmed_at >= LARGE_COMMIT_CHUNKS:
            self._trimmed_at = computed
            release_free_memory()
        if self._on_embedded is not None:
            self._on_embedded()

    def indexed(self) -> list[IndexedStream]:
        """The streams that keep their own copy of the corpus, beside the knowledge base."""
        kept = (self.bm25, self.code, self.semantic)
        return [stream for stream in kept if stream is not None]

    # -- searching -----------------------------------------------------------------------------

    def retriever_for(self, pipeline: Pipeline, session_pipeline: str) -> HybridRetriever:
        """A retriever with ``pipeline``'s weights over these stores; raises if it needs a
        stream they do not keep (``session_pipeline`` names the session's, for the message)."""
        streams: list[StreamSpec] = []

        def missing(stream: str) -> InvalidArgumentError:
            return InvalidArgumentError(
                f"pipeline {pipeline.name!r} needs the {stream} stream, which this service "
                f"({session_pipeline!r} pipeline) does not keep"
            )

        if pipeline.bm25 > 0:
            if self.bm25 is None:
                raise missing("BM25")
            streams.append((self.bm25, pipeline.bm25, pipeline.bm25_kinds))
        if pipeline.tfidf > 0:
            streams.append((KnowledgeBaseStream(self.knowledge_base), pipeline.tfidf))
        if pipeline.uses_code:
            code = self.code
            if code is None:
                raise missing("code")
            if pipeline.code > 0:
                split = code if code.weights == pipeline.fields else code.view(pipeline.fields)
                streams.append((split, pipeline.code))
            if pipeline.words > 0:
                whole = code.view(pipeline.word_fields, name="words")
                streams.append((whole, pipeline.words, pipeline.words_kinds))
        if pipeline.semantic > 0:
            if self.semantic is None:
                raise missing("semantic")
            streams.append((self.semantic, pipeline.semantic, pipeline.semantic_kinds))
        ranking = None
        if pipeline.ranking is not None:
            counter = self.code
            ranking = RankingLayer(
                pipeline.ranking,
                None if counter is None else counter.document_frequency,
                None if counter is None else counter.document_count,
                None if counter is None else counter.family_counts,
            )
        return HybridRetriever(streams, ranking=ranking)

    def switch_to(self, chosen: Pipeline) -> None:
        """Keep exactly the streams ``chosen`` needs: a missing one is built from the chunks
        the knowledge base holds (nothing is re-read), an unneeded one is dropped."""
        documents = None
        if chosen.bm25 > 0 and self.bm25 is None:
            documents = self.knowledge_base.list()
            self.bm25 = BM25Stream.unbounded(synonyms=self.synonyms)
            self.bm25.replace_documents((), documents)
        elif chosen.bm25 == 0:
            self.bm25 = None
        if chosen.uses_code and self.code is None:
            documents = documents if documents is not None else self.knowledge_base.list()
            self.code = CodeStream(weights=chosen.fields, synonyms=self.synonyms)
            self.code.replace_documents((), documents)
        elif not chosen.uses_code:
            self.code = None
        if chosen.semantic > 0 and self.semantic is None:
            documents = documents if documents is not None else self.knowledge_base.list()
            self.semantic = self._new_semantic()
            self.semantic.replace_documents((), documents)  # embedded in the background
        elif chosen.semantic == 0 and self.semantic is not None:
            self.semantic.clear()  # its worker stops at the next batch
            self.semantic = None

    def set_synonyms(self, table: SynonymTable | None) -> None:
        self.synonyms = table
        for stream in (self.bm25, self.code):
            if stream is not None:
                stream.synonyms = table

    def warnings(self, pipeline: Pipeline) -> tuple[str, ...]:
        """BM25's coverage, when a configured cap or expiry dropped chunks ``pipeline`` uses."""
        if self.bm25 is None or not self.bm25.bounded or pipeline.bm25 == 0:
            return ()
        return coverage_warnings(len(self.bm25), len(self.knowledge_base))

    def wait_for_embeddings(self, timeout: float | None) -> bool:
        semantic = self.semantic
        return True if semantic is None else semantic.wait(timeout)

    def semantic_status(self) -> SemanticStatus | None:
        semantic = self.semantic
        return None if semantic is None else semantic.status()

    def bounds(self) -> tuple[int | None, float | None]:
        """BM25's cap and expiry (part of a stored generation's configuration key)."""
        bm25 = self.bm25
        return (None, None) if bm25 is None else (bm25.max_documents, bm25.ttl_seconds)

    # -- a stored generation (SPEC §11) ----------------------------------------------------------

    def export_state(self) -> dict[str, StreamState]:
        streams = {"tfidf": self.knowledge_base.export_state()}
        for kind, stream in (("bm25", self.bm25), ("code", self.code)):
            if stream is not None:
                streams[kind] = stream.export_state()
        if self.semantic is not None:
            streams[SEMANTIC] = self.semantic.export_state()
        return streams

    def restore_state(
        self,
        states: Mapping[str, StreamState],
        documents: Mapping[str, Document],
        ordered: Sequence[Document],
    ) -> None:
        """Install stored states; a stream the generation lacks (stored by another pipeline) is
        built from its chunks, a semantic stream embeds what has no stored vector."""
        self.knowledge_base.restore_state(states["tfidf"], documents)
        for kind, stream in (("bm25", self.bm25), ("code", self.code)):
            if stream is None:
                continue
            stored = states.get(kind)
            if stored is not None:
                stream.restore_state(stored, documents)
            else:
                stream.clear()
                stream.replace_documents((), ordered)
        if self.semantic is not None:  # vectors of another model, or none: embedded again
            self.semantic.restore_state(states.get(SEMANTIC), documents)

    def clear(self) -> None:
        self.knowledge_base.clear()
        for stream in self.indexed():
            stream.clear()

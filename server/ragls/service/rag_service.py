"""RagService: one session's retrieval pipeline (SPEC §7).

It owns an :class:`InMemoryKnowledgeBase` and a :class:`BM25Stream` fused by a HybridRetriever
(BM25 at 0.6, TF-IDF at 0.4: the ``seed`` pipeline, the default), the documents added through the
API, and the session's status. ``RagService(pipeline=WORKSPACE)`` adds the code stream
(:mod:`ragls.service.pipelines`), as the daemon and the CLI do.

The BM25 stream a service builds for itself is unbounded and never expires (SPEC §3: a workspace
index is not a cache). A caller may pass a bounded one; then :meth:`RagService.get_status` and
:meth:`RagService.warnings` say how much of the corpus BM25 still covers.

A cold run (nothing indexed yet, no stored generation loaded) commits partial generations as it
reads (:mod:`ragls.ingest.partial`), so searches answer from the first second: each is a whole
generation of the files read so far, numbered with the number the run will commit and flagged
in :attr:`IndexStatus.partial` (:attr:`RagService.partial`) until the final commit. A refused,
cancelled or failed cold run withdraws them (the previous, empty generation stays, SPEC §8), and
none of them is ever saved: the store's save waits for the index lock, so it sees the final
generation only (SPEC §11).

Locking: ``_index_lock`` makes index runs and ``clear()`` one-at-a-time (others wait);
``_commit_lock`` is held only while the stores are changed, so adding a document does not wait
for a whole index run. Searches take neither: each store swaps atomically under its own lock, so
a search sees whole generations.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from ragls.core.analyzer import SynonymTable
from ragls.core.bm25 import BM25Stream
from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document, IndexedStream, SearchResult
from ragls.core.fusion import HybridRetriever, StreamSpec
from ragls.core.knowledge_base import InMemoryKnowledgeBase, KnowledgeBaseStream
from ragls.core.prompt import render_context_prompt
from ragls.core.ranking.layer import RankingLayer
from ragls.core.semantic import KIND as SEMANTIC
from ragls.core.semantic import SemanticStream
from ragls.core.validation import check_top_k
from ragls.errors import InvalidArgumentError, RaglsError
from ragls.ingest.admission import SkipReason
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.explain import explain_path
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.indexer import FileIndexer, IndexReport, PartialReport
from ragls.ingest.limits import Limits
from ragls.ingest.partial import DEFAULT_PARTIAL_COMMITS, PartialCommits
from ragls.service import chat
from ragls.service.documents import document_info, new_added_document, redacted_document
from ragls.service.memory import collection_paused, release_free_memory
from ragls.service.persistence import snapshot
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import SEED, Pipeline, pipeline_named
from ragls.service.status import (
    DocumentInfo,
    IndexProgress,
    IndexStatus,
    PathExplanation,
    coverage_warnings,
)
from ragls.service.tracked import tracked_counts
from ragls.store.interface import Snapshot

log = logging.getLogger(__name__)

BM25_WEIGHT = SEED.bm25
TFIDF_WEIGHT = SEED.tfidf
DEFAULT_TOP_K = 5
# After a commit of this many chunks the freed heap goes back to the system (service.memory).
LARGE_COMMIT_CHUNKS = 2_000


def _chosen(pipeline: Pipeline | str) -> Pipeline:
    return pipeline_named(pipeline) if isinstance(pipeline, str) else pipeline


class RagService:
    """Search, context prompts and document management over one session's corpus."""

    CHAT_SOURCE = chat.CHAT_SOURCE
    CHAT_TOP_K = chat.CHAT_TOP_K

    def __init__(
        self,
        *,
        bm25: BM25Stream | None = None,
        knowledge_base: InMemoryKnowledgeBase | None = None,
        limits: Limits | None = None,
        indexer: FileIndexer | None = None,
        pipeline: Pipeline | str = SEED,
        also_serve: Sequence[Pipeline] = (),
        persistence: Persistence | None = None,
        partial_commits: PartialCommits | None = DEFAULT_PARTIAL_COMMITS,
    ) -> None:
        """``pipeline`` is what :meth:`search` uses; the service keeps the streams it needs,
        plus those of ``also_serve`` (pipelines to compare with through :meth:`retriever_for`,
        as ``ragls eval`` does). A ``bm25`` passed in is kept whatever the pipeline.
        ``persistence`` keeps the index in a generation store (SPEC §11): the first run loads
        the stored generation and reconciles it, every change is saved after it.
        ``partial_commits``: the cadence of a cold run's partial generations (None: a cold run
        commits once, for callers that search only after it, like the CLI)."""
        self._pipeline = _chosen(pipeline)
        served = [self._pipeline, *also_serve]
        # TF-IDF is indexed on first use when no pipeline served searches it (SPEC §4's store
        # holds the documents either way).
        self._knowledge_base = (
            knowledge_base
            if knowledge_base is not None
            else InMemoryKnowledgeBase(index_on_demand=all(p.tfidf == 0 for p in served))
        )
        self._synonyms: SynonymTable | None = None
        self._bm25 = bm25
        if bm25 is None and any(p.bm25 > 0 for p in served):
            self._bm25 = BM25Stream.unbounded()
        self._code = None
        if any(p.uses_code for p in served):
            self._code = CodeStream(weights=self._pipeline.fields)
        self._semantic = None
        if any(p.semantic > 0 for p in served):
            self._semantic = self._new_semantic()
        self._retriever = self.retriever_for(self._pipeline)
        self._index_lock = threading.Lock()
        self._commit_lock = threading.Lock()
        self._added: dict[str, Document] = {}
        self._status = IndexStatus()
        self._indexer = indexer if indexer is not None else FileIndexer(limits)
        self._last_report: IndexReport | None = None
        self._last_config: KnowledgeSourceConfig | None = None
        self._tracked_in_skipped: dict[str, int] = {}
        self._progress: IndexProgress | None = None  # the running run's latest tick
        self._persistence = persistence
        if persistence is not None:
            persistence.bind(self._save_generation)
        self._partial_commits = partial_commits

    # -- indexing ------------------------------------------------------------------------------

    def index_directory(
        self,
        path: str | os.PathLike[str],
        progress: Callable[[IndexProgress], None] | None = None,
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        format: DocumentFormat = DocumentFormat.AUTO,
        default_skips: Iterable[str] | None = None,
        changed_paths: Iterable[str | os.PathLike[str]] | None = None,
        cancelled: Callable[[], bool] | None = None,
        force: bool = False,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
        on_partial: Callable[[IndexStatus], None] | None = None,
    ) -> IndexStatus:
        """Index the directory at ``path`` as one new generation and return the new status.

        ``changed_paths`` limits the run to those paths (files or directories, absolute or
        relative to ``path``) with the same guarantees; ``force`` drops the fingerprints first.
        Runs of one session take turns. A refused, cancelled or failed run raises (an
        :class:`~ragls.errors.RaglsError`) and leaves the previous generation in place.
        A cold run commits partial generations on the way (see the module docstring);
        ``on_partial`` hears the status of each once searches answer from it.
        """
        config = self._source_config(
            path, include, exclude, format, default_skips, detect_secrets, secret_names
        )
        with self._index_lock:
            persistence = self._persistence
            if persistence is not None and not persistence.attempted_load and not force:
                self._warm_start(persistence, config)
            if force:
                self._indexer.clear_hashes()

            def report(done: int, total: int, current: str) -> None:
                tick = IndexProgress(done, total, current)
                self._progress = tick
                if progress is not None:
                    progress(tick)

            before = self._status

            def coming(partial: PartialReport) -> None:
                # Before the swap: an answer may say partial about a generation not yet
                # swapped in, never whole about a partial one (the first partial commit).
                self._status = dataclasses.replace(
                    before,
                    file_count=partial.file_count,
                    chunk_count=partial.chunk_count,
                    last_index_time=datetime.now(UTC),
                    indexed_path=str(partial.root),
                    generation=before.generation + 1,  # the number the run will commit
                    last_error=None,
                    partial=IndexProgress(partial.files_done, partial.total_files, ""),
                )

            def live(partial: PartialReport) -> None:
                if on_partial is not None:
                    on_partial(self.get_status())

            self._progress = IndexProgress(0, 0, "")
            try:
                result = self._indexer.index(
                    config,
                    self._knowledge_base,
                    None,
                    streams=self._streams(),
                    progress=report,
                    cancelled=cancelled,
                    changed_paths=changed_paths,
                    commit_lock=self._commit_lock,
                    partial=self._partial_commits,
                    on_partial=live,
                    before_partial=coming,
                )
            except BaseException as error:
                # Partial generations were withdrawn: the status is the previous one's again.
                self._status = before
                if isinstance(error, RaglsError):
                    self._status = dataclasses.replace(before, last_error=str(error))
                raise
            finally:
                self._progress = None
            self._last_report = result
            self._last_config = config
            if changed_paths is None:  # a full run: ask git once about skipped directories
                self._tracked_in_skipped = tracked_counts(
                    result.root,
                    (
                        skip.path
                        for skip in result.skipped
                        if skip.reason is SkipReason.DEFAULT_SKIP
                        and (result.root / skip.path).is_dir()
                    ),
                )
            if result.chunks_added + result.chunks_removed >= LARGE_COMMIT_CHUNKS:
                release_free_memory()
            self._status = IndexStatus(
                file_count=result.file_count,
                chunk_count=result.chunk_count,
                last_index_time=datetime.now(UTC),
                indexed_path=str(result.root),
                generation=before.generation + 1,
                skipped=MappingProxyType(
                    dict(sorted(Counter(s.reason.value for s in result.skipped).items()))
                ),
                errors=tuple(result.errors),
                tracked_in_skipped=MappingProxyType(dict(self._tracked_in_skipped)),
                redacted=MappingProxyType(self._indexer.redactions),
                windowed_languages=MappingProxyType(self._indexer.windowed_languages),
            )
            # Saved when what answers changed, and when a file was re-read with the same
            # content (a touch, a checkout back and forth): its new stat record must reach the
            # store too, or every later start would read the file again, forever.
            if (
                result.chunks_added
                or result.chunks_removed
                or result.files_removed
                or result.files_refreshed
            ):
                self._changed()
        return self.get_status()

    def explain_path(self, path: str | os.PathLike[str]) -> PathExplanation:
        """Whether ``path`` (absolute, or relative to the indexed root) is indexed, and if not,
        why: the admission check of :mod:`ragls.ingest.explain` against the last run's source,
        then what the current generation holds for it."""
        config = self._last_config
        if config is None:
            raise InvalidArgumentError("nothing is indexed in this session yet; index it first")
        found = explain_path(self._indexer.ingestion, config, path)
        chunks = self._indexer.chunk_count_of(found.path)
        if chunks:
            return PathExplanation(found.path, True, chunks, format=found.format)
        if not found.admitted:
            return PathExplanation(found.path, False, 0, found.reason, found.detail)
        if found.chunks == 0 and found.format is not None:  # a file (a directory has none)
            return PathExplanation(found.path, False, 0, "empty", "the file has no text to chunk")
        # The file as it is now would be indexed (explain ran the indexer's pipeline on it),
        # so whatever the last run recorded for it is out of date.
        detail = "admitted, but not in the current generation yet: an index run is pending"
        return PathExplanation(found.path, False, 0, "pending", detail, found.format)

    @property
    def last_report(self) -> IndexReport | None:
        """The report of the last committed index run (skips with paths, work counters)."""
        return self._last_report

    def set_limits(self, limits: Limits) -> None:
        """Use ``limits`` from the next index run on (waits for a running one)."""
        with self._index_lock:
            self._indexer.set_limits(limits)

    def set_worker_niceness(self, niceness: int) -> None:
        """The CPU niceness of the indexing worker processes from the next run on (0: this
        process's priority; see ``ragls.ingest.parallel``)."""
        with self._index_lock:
            self._indexer.worker_niceness = niceness

    def indexed_files(self) -> list[str]:
        """The files of the current generation (POSIX paths relative to the indexed root)."""
        with self._commit_lock:
            return self._indexer.indexed_files()

    def clear_hashes(self) -> None:
        """Forget every fingerprint so the next run re-reads and re-chunks every file."""
        with self._index_lock:
            self._indexer.clear_hashes()

    @staticmethod
    def _source_config(
        path: str | os.PathLike[str],
        include: Sequence[str],
        exclude: Sequence[str],
        format: DocumentFormat,
        default_skips: Iterable[str] | None,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
    ) -> KnowledgeSourceConfig:
        if not isinstance(path, str | os.PathLike):
            raise InvalidArgumentError(f"path must be a path string, got {type(path).__name__}")
        root = Path(path).expanduser()
        if not root.exists():
            raise InvalidArgumentError(f"path {str(root)!r} does not exist")
        if not root.is_dir():
            raise InvalidArgumentError(f"path {str(root)!r} is not a directory")
        config = KnowledgeSourceConfig(
            root.resolve(),
            tuple(include),
            tuple(exclude),
            format,
            detect_secrets=detect_secrets,
            secret_names=tuple(secret_names),
        )
        if default_skips is not None:
            config = dataclasses.replace(config, default_skips=frozenset(default_skips))
        return config

    # -- search --------------------------------------------------------------------------------

    @property
    def pipeline(self) -> Pipeline:
        return self._pipeline

    def retriever_for(self, pipeline: Pipeline) -> HybridRetriever:
        """A retriever over this service's stores with ``pipeline``'s weights (the service's
        own, or another preset to compare with, as ``ragls eval`` does). Raises if the pipeline
        needs a stream this service does not keep."""
        streams: list[StreamSpec] = []
        if pipeline.bm25 > 0:
            if self._bm25 is None:
                raise InvalidArgumentError(
                    f"pipeline {pipeline.name!r} needs the BM25 stream, which this service "
                    f"({self._pipeline.name!r} pipeline) does not keep"
                )
            streams.append((self._bm25, pipeline.bm25, pipeline.bm25_kinds))
        if pipeline.tfidf > 0:
            streams.append((KnowledgeBaseStream(self._knowledge_base), pipeline.tfidf))
        if pipeline.uses_code:
            if self._code is None:
                raise InvalidArgumentError(
                    f"pipeline {pipeline.name!r} needs the code stream, which this service "
                    f"({self._pipeline.name!r} pipeline) does not keep"
                )
            code = self._code
            if pipeline.code > 0:
                split = code if code.weights == pipeline.fields else code.view(pipeline.fields)
                streams.append((split, pipeline.code))
            if pipeline.words > 0:
                whole = code.view(pipeline.word_fields, name="words")
                streams.append((whole, pipeline.words, pipeline.words_kinds))
        if pipeline.semantic > 0:
            if self._semantic is None:
                raise InvalidArgumentError(
                    f"pipeline {pipeline.name!r} needs the semantic stream, which this service "
                    f"({self._pipeline.name!r} pipeline) does not keep"
                )
            streams.append((self._semantic, pipeline.semantic, pipeline.semantic_kinds))
        ranking = None
        if pipeline.ranking is not None:
            counter = self._code
            ranking = RankingLayer(
                pipeline.ranking,
                None if counter is None else counter.document_frequency,
                None if counter is None else counter.document_count,
            )
        return HybridRetriever(streams, ranking=ranking)

    def set_pipeline(self, pipeline: Pipeline | str) -> None:
        """Search with another pipeline from now on. A stream it needs that the service does
        not keep is built from the documents the knowledge base holds (nothing is re-read);
        one it no longer needs is dropped. Waits for a running index run."""
        chosen = _chosen(pipeline)
        with self._index_lock, self._commit_lock:
            documents = None
            if chosen.bm25 > 0 and self._bm25 is None:
                documents = self._knowledge_base.list()
                self._bm25 = BM25Stream.unbounded(synonyms=self._synonyms)
                self._bm25.replace_documents((), documents)
            elif chosen.bm25 == 0:
                self._bm25 = None
            if chosen.uses_code and self._code is None:
                documents = documents if documents is not None else self._knowledge_base.list()
                self._code = CodeStream(weights=chosen.fields, synonyms=self._synonyms)
                self._code.replace_documents((), documents)
            elif not chosen.uses_code:
                self._code = None
            if chosen.semantic > 0 and self._semantic is None:
                documents = documents if documents is not None else self._knowledge_base.list()
                self._semantic = self._new_semantic()
                self._semantic.replace_documents((), documents)  # embedded in the background
            elif chosen.semantic == 0 and self._semantic is not None:
                self._semantic.clear()  # its worker stops at the next batch
                self._semantic = None
            self._pipeline = chosen
            self._retriever = self.retriever_for(chosen)
        self._changed()

    def _streams(self) -> list[IndexedStream]:
        """The streams that keep their own copy of the corpus, beside the knowledge base."""
        kept = (self._bm25, self._code, self._semantic)
        return [stream for stream in kept if stream is not None]

    def _new_semantic(self) -> SemanticStream:
        from ragls.models.static import shared_embedder

        return SemanticStream(shared_embedder(), on_embedded=self._embedded)

    def _embedded(self) -> None:
        """The semantic stream's queue drained: store its vectors with the generation, and
        give the embedding's scratch memory back to the system."""
        release_free_memory()
        self._changed()

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Wait until every chunk has its vector (True at once without a semantic stream);
        False if ``timeout`` passed first. Searches never wait: this is for one-shot callers
        (the CLI, the eval) that want the semantic stream complete before they ask."""
        semantic = self._semantic
        return True if semantic is None else semantic.wait(timeout)

    def warnings(self) -> tuple[str, ...]:
        """What makes this session's answers incomplete right now (see IndexStatus.warnings).
        Cheap: the daemon and the CLI attach it to every search answer."""
        if self._bm25 is None or not self._bm25.bounded or self._pipeline.bm25 == 0:
            return ()
        return coverage_warnings(len(self._bm25), len(self._knowledge_base))

    def search(self, query: str, top_k: int = DEFAULT_TOP_K) -> list[SearchResult]:
        """Fused results, best first; an empty or blank query gives an empty list."""
        return self._retriever.retrieve(query, top_k)

    def build_context_prompt(self, query: str, top_k: int = DEFAULT_TOP_K) -> str:
        """The fenced context prompt (SPEC §6); the query itself if nothing is found.

        Argument errors (a non-string query, top_k out of range) are raised; any failure while
        searching or rendering falls back to the bare query, as the contract says.
        """
        check_top_k(top_k)
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
        try:
            return render_context_prompt(query, self.search(query, top_k))
        except InvalidArgumentError:
            raise
        except Exception:
            log.exception("building the context prompt failed; returning the query alone")
            return query

    # -- added documents -----------------------------------------------------------------------

    def add_document(self, content: str, metadata: Mapping[str, str] | None = None) -> str:
        """Add a document to the session's corpus; returns its new unique id."""
        document = new_added_document(content, metadata)
        if self._last_config is None or self._last_config.detect_secrets:
            document = redacted_document(document)
        with self._commit_lock:
            self._knowledge_base.add(document)
            done: list[IndexedStream] = []
            try:
                for stream in self._streams():
                    stream.add(document)
                    done.append(stream)
            except BaseException:
                for stream in done:
                    stream.remove(document.id)
                self._knowledge_base.remove(document.id)
                raise
            self._added[document.id] = document
        self._changed()
        return document.id

    def list_documents(self) -> list[DocumentInfo]:
        """The documents added with add_document (never indexed chunks), oldest first."""
        with self._commit_lock:
            added = list(self._added.values())
        return [document_info(document) for document in added]

    def get_document(self, document_id: str) -> Document | None:
        """Any document of the corpus, added or indexed; None if there is none with that id."""
        if not isinstance(document_id, str):
            return None
        return self._knowledge_base.get(document_id)

    def remove_document(self, document_id: str) -> bool:
        """Remove an added document; False for unknown ids and for indexed chunks (a re-index
        owns those)."""
        if not isinstance(document_id, str):
            return False
        with self._commit_lock:
            if self._added.pop(document_id, None) is None:
                return False
            self._knowledge_base.remove(document_id)
            for stream in self._streams():
                stream.remove(document_id)
        self._changed()
        return True

    # -- lifecycle -----------------------------------------------------------------------------

    def clear(self) -> None:
        """Empty everything (stores, added documents, status); waits for a running index."""
        with self._index_lock, self._commit_lock:
            self._knowledge_base.clear()
            for stream in self._streams():
                stream.clear()
            self._added.clear()
            self._indexer.forget()
            self._last_report = None
            self._last_config = None
            self._tracked_in_skipped = {}
            self._status = IndexStatus()
        self._changed()

    @property
    def generation(self) -> int:
        """The number of the committed generation searches answer from (0 before the first)."""
        return self._status.generation

    @property
    def partial(self) -> IndexProgress | None:
        """How far the cold run had got when it committed the live generation, if that is one
        of its partial generations; None when searches answer from a whole generation."""
        return self._status.partial

    def is_indexing(self) -> bool:
        """Whether an index run (or clear) is under way; takes no lock."""
        return self._index_lock.locked()

    def get_status(self) -> IndexStatus:
        """The status of the last committed run, with live document counts."""
        bm25 = self._bm25
        stats = bm25.stats() if bm25 is not None and self._pipeline.bm25 > 0 else None
        status = self._status
        with self._commit_lock:
            added = len(self._added)
        indexing = self.is_indexing()
        semantic = self._semantic
        return dataclasses.replace(
            status,
            indexing=indexing,
            progress=self._progress if indexing else None,
            added_document_count=added,
            corpus_documents=len(self._knowledge_base),
            bm25_documents=None if stats is None else stats.documents,
            bm25_evicted=0 if stats is None else stats.evicted,
            bm25_expired=0 if stats is None else stats.expired,
            persistence=None if self._persistence is None else self._persistence.status(),
            semantic=None if semantic is None else semantic.status(),
        )

    # -- persistence (SPEC §11) ----------------------------------------------------------------

    @property
    def persistence(self) -> Persistence | None:
        return self._persistence

    def warm_start(
        self,
        path: str | os.PathLike[str],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        format: DocumentFormat = DocumentFormat.AUTO,
        default_skips: Iterable[str] | None = None,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
    ) -> bool:
        """Load the stored generation of ``path`` (with the selectors of
        :meth:`index_directory`, which its configuration fingerprint includes) without
        reconciling it; True if one was loaded. The first :meth:`index_directory` does this by
        itself before it reconciles; a caller uses this to answer from the stored generation
        while the reconciling run is still to come. Only an empty service loads."""
        config = self._source_config(
            path, include, exclude, format, default_skips, detect_secrets, secret_names
        )
        persistence = self._persistence
        with self._index_lock:
            if persistence is None or persistence.attempted_load:
                return False
            self._warm_start(persistence, config)
            return persistence.loaded_generation is not None

    def _changed(self) -> None:
        if self._persistence is not None:
            self._persistence.changed()

    def _config_key(self, config: KnowledgeSourceConfig) -> str:
        bm25 = self._bm25
        bounds = (None, None) if bm25 is None else (bm25.max_documents, bm25.ttl_seconds)
        return snapshot.config_key(config, self._indexer.limits, bounds)

    def _warm_start(self, persistence: Persistence, config: KnowledgeSourceConfig) -> None:
        """Load the stored generation of ``config``'s root into this (empty) service before its
        first run reconciles it; anything that does not fit is refused and rebuilt."""
        if self._status.generation or len(self._knowledge_base):
            persistence.attempted_load = True
            return  # not empty: the index in memory is newer than anything stored
        with collection_paused():  # hundreds of thousands of new objects, none of them garbage
            result = persistence.load(self._config_key(config))
            if result.snapshot is None:
                return
            self._install(persistence, config, result.snapshot)

    def _install(
        self, persistence: Persistence, config: KnowledgeSourceConfig, stored: Snapshot
    ) -> None:
        try:
            state = snapshot.from_snapshot(stored)
            if state.root != str(config.path) and persistence.store.shared:
                state = snapshot.relocated(state, str(config.path))
            if state.root != str(config.path):
                raise ValueError(f"it is the index of {state.root}, not of {config.path}")
            with self._commit_lock:
                self._restore_state(state)
        except Exception as error:  # whatever the stored parts hold, the files are the fallback
            with self._commit_lock:
                self._reset_stores()
            persistence.refused(str(error) or type(error).__name__)
            return
        persistence.loaded(state.generation)
        log.info(
            "%s: loaded generation %d (%d chunks) from %s",
            config.path,
            state.generation,
            len(state.documents),
            persistence.store.location,
        )

    def _restore_state(self, state: snapshot.ServiceState) -> None:
        """Install ``state`` (commit lock held; raises if it does not fit)."""
        documents = {document.id: document for document in state.documents}
        # The generation first: searches take no lock, and an answer from a store restored a
        # moment ago is an answer of the stored generation, never of "generation 0" (SPEC §11).
        self._status = snapshot.status_from(state.status, state.generation)
        self._knowledge_base.restore_state(state.streams["tfidf"], documents)
        for kind, stream in (("bm25", self._bm25), ("code", self._code)):
            if stream is None:
                continue
            stored = state.streams.get(kind)
            if stored is not None:
                stream.restore_state(stored, documents)
            else:  # stored by another pipeline: built from its chunks, as set_pipeline does
                stream.clear()
                stream.replace_documents((), state.documents)
        if self._semantic is not None:  # vectors of another model, or none: embedded again
            self._semantic.restore_state(state.streams.get(SEMANTIC), documents)
        root = Path(state.root) if state.root else None
        if root is not None:
            self._indexer.restore_records(root, state.records, state.skips, documents)
        self._added = {i: documents[i] for i in state.added}
        self._last_config = None if state.source is None else snapshot.source_config(state.source)
        self._status = dataclasses.replace(
            snapshot.status_from(state.status, state.generation),
            redacted=MappingProxyType(self._indexer.redactions),
            windowed_languages=MappingProxyType(self._indexer.windowed_languages),
        )
        self._tracked_in_skipped = dict(self._status.tracked_in_skipped)

    def _reset_stores(self) -> None:
        self._knowledge_base.clear()
        for stream in self._streams():
            stream.clear()
        self._added.clear()
        self._indexer.forget()
        self._last_config = None
        self._status = IndexStatus()

    def export_state(self) -> snapshot.ServiceState:
        """The committed generation as plain values (SPEC §11); waits for a running run."""
        with self._index_lock, self._commit_lock:
            root, records, skips = self._indexer.export_records()
            streams = {"tfidf": self._knowledge_base.export_state()}
            for kind, stream in (("bm25", self._bm25), ("code", self._code)):
                if stream is not None:
                    streams[kind] = stream.export_state()
            if self._semantic is not None:
                streams[SEMANTIC] = self._semantic.export_state()
            config = self._last_config
            return snapshot.ServiceState(
                generation=self._status.generation,
                documents=self._knowledge_base.list(),
                added=list(self._added),
                streams=streams,
                root=None if root is None else str(root),
                records=records,
                skips=skips,
                status=snapshot.status_fields(self._status),
                source=None if config is None else snapshot.source_fields(config),
            )

    def export_snapshot(self) -> Snapshot | None:
        """The committed generation as a store writes it, under the configuration key a start
        loads it with; None while nothing is indexed (after ``clear()`` too)."""
        config = self._last_config
        if config is None:
            return None
        return snapshot.to_snapshot(self.export_state(), self._config_key(config))

    def _save_generation(self) -> None:
        """Capture the committed generation and write it to the store (Persistence's save)."""
        persistence = self._persistence
        if persistence is None:
            return
        stored = self.export_snapshot()
        if stored is None:  # cleared: a start must not bring back what was cleared
            persistence.store.discard()
            return
        persistence.store.save(stored)

    def set_synonyms(self, table: SynonymTable | None) -> None:
        """Replace the query-time synonym table (None restores the default of SPEC §2)."""
        self._synonyms = table
        for stream in (self._bm25, self._code):
            if stream is not None:
                stream.synonyms = table

    def attach_chat_to(self, agent: object) -> bool:
        """Bind the live corpus to ``agent`` (SPEC §7).

        Raises ChatBindingError if the agent's declaration is not MEMORY knowledge named
        ``session-knowledge`` with top-k 5. Returns False, binding nothing, while the corpus is
        empty; True once bound.
        """
        declaration = chat.session_declaration(agent)
        if len(self._knowledge_base) == 0:
            return False
        corpus = chat.SessionCorpus(self, declaration.top_k)
        agent.bind_chat_knowledge(declaration, corpus)  # type: ignore[attr-defined]
        return True

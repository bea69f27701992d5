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
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from ragls.core import spill
from ragls.core.analyzer import SynonymTable
from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document, SearchResult
from ragls.core.fusion import HybridRetriever
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.core.prompt import render_context_prompt
from ragls.core.symbols import SymbolMatch
from ragls.core.validation import check_top_k
from ragls.errors import InvalidArgumentError
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.indexer import FileIndexer, IndexReport
from ragls.ingest.limits import Limits
from ragls.ingest.partial import DEFAULT_PARTIAL_COMMITS, PartialCommits
from ragls.service import chat
from ragls.service.added import AddedDocuments
from ragls.service.indexing import IndexRuns
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import SEED, Pipeline, pipeline_named
from ragls.service.status import (
    IndexProgress,
    IndexStatus,
    SymbolCounts,
)
from ragls.service.stored import StoredGeneration
from ragls.service.streams import SessionStreams
from ragls.service.structure import SymbolStructure
from ragls.store import boundary, paths

log = logging.getLogger(__name__)

BM25_WEIGHT = SEED.bm25
TFIDF_WEIGHT = SEED.tfidf
DEFAULT_TOP_K = 5


def _chosen(pipeline: Pipeline | str) -> Pipeline:
    return pipeline_named(pipeline) if isinstance(pipeline, str) else pipeline


class RagService(IndexRuns, AddedDocuments, StoredGeneration):
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
        _use_text_spill()
        self._pipeline = _chosen(pipeline)
        served = [self._pipeline, *also_serve]
        self._stores = SessionStreams(
            served, knowledge_base=knowledge_base, bm25=bm25, on_embedded=self._embedded
        )
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

    # -- search --------------------------------------------------------------------------------

    @property
    def pipeline(self) -> Pipeline:
        return self._pipeline

    def retriever_for(self, pipeline: Pipeline) -> HybridRetriever:
        """A retriever over this service's stores with ``pipeline``'s weights (the service's
        own, or another preset to compare with, as ``ragls eval`` does). Raises if the pipeline
        needs a stream this service does not keep."""
        return self._stores.retriever_for(pipeline, self._pipeline.name)

    def set_pipeline(self, pipeline: Pipeline | str) -> None:
        """Search with another pipeline from now on. A stream it needs that the service does
        not keep is built from the documents the knowledge base holds (nothing is re-read);
        one it no longer needs is dropped. Waits for a running index run."""
        chosen = _chosen(pipeline)
        with self._index_lock, self._commit_lock:
            self._stores.switch_to(chosen)
            self._pipeline = chosen
            self._retriever = self.retriever_for(chosen)
        self._changed()

    def _embedded(self) -> None:
        """The semantic stream's queue drained: store its vectors with the generation."""
        self._changed()

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Wait until every chunk has its vector (True at once without a semantic stream);
        False if ``timeout`` passed first. Searches never wait: this is for one-shot callers
        (the CLI, the eval) that want the semantic stream complete before they ask."""
        return self._stores.wait_for_embeddings(timeout)

    def warnings(self) -> tuple[str, ...]:
        """What makes this session's answers incomplete right now (see IndexStatus.warnings).
        Cheap: the daemon and the CLI attach it to every search answer."""
        return self._stores.warnings(self._pipeline)

    def search(self, query: str, top_k: int = DEFAULT_TOP_K) -> list[SearchResult]:
        """Fused results, best first; an empty or blank query gives an empty list."""
        return self._retriever.retrieve(query, top_k)

    def find_symbols(self, query: str, limit: int) -> tuple[Path | None, list[SymbolMatch]]:
        """The indexed root and the best ``limit`` definitions and references whose name
        matches ``query`` (ranked as :meth:`ragls.core.symbols.SymbolIndex.search` says), paths
        relative to that root. Takes no service lock: the index swaps each commit whole."""
        indexer = self._indexer
        return indexer.root, indexer.symbols.search(query, limit)

    def structure(self) -> SymbolStructure:
        """Definitions, references, outlines and the repository map of the committed index
        (:mod:`ragls.service.structure`); one object per question (it caches source lines)."""
        indexer = self._indexer
        return SymbolStructure(indexer.root, indexer.symbols, indexer.documents_of, self.search)

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

    # -- lifecycle -----------------------------------------------------------------------------

    def clear(self) -> None:
        """Empty everything (stores, added documents, status); waits for a running index."""
        with self._index_lock, self._commit_lock:
            self._stores.clear()
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
        bm25 = self._stores.bm25
        stats = bm25.stats() if bm25 is not None and self._pipeline.bm25 > 0 else None
        status = self._status
        with self._commit_lock:
            added = len(self._added)
        indexing = self.is_indexing()
        symbols = self._indexer.symbols
        return dataclasses.replace(
            status,
            indexing=indexing,
            progress=self._progress if indexing else None,
            added_document_count=added,
            corpus_documents=len(self._stores.knowledge_base),
            bm25_documents=None if stats is None else stats.documents,
            bm25_evicted=0 if stats is None else stats.evicted,
            bm25_expired=0 if stats is None else stats.expired,
            persistence=None if self._persistence is None else self._persistence.status(),
            semantic=self._stores.semantic_status(),
            symbols=SymbolCounts(symbols.definition_count, symbols.reference_count),
        )

    # -- persistence (SPEC §11) ----------------------------------------------------------------

    def _changed(self) -> None:
        if self._persistence is not None:
            self._persistence.changed()

    def set_synonyms(self, table: SynonymTable | None) -> None:
        """Replace the query-time synonym table (None restores the default of SPEC §2)."""
        self._stores.set_synonyms(table)

    def attach_chat_to(self, agent: object) -> bool:
        """Bind the live corpus to ``agent`` (SPEC §7).

        Raises ChatBindingError if the agent's declaration is not MEMORY knowledge named
        ``session-knowledge`` with top-k 5. Returns False, binding nothing, while the corpus is
        empty; True once bound.
        """
        declaration = chat.session_declaration(agent)
        if len(self._stores.knowledge_base) == 0:
            return False
        corpus = chat.SessionCorpus(self, declaration.top_k)
        agent.bind_chat_knowledge(declaration, corpus)  # type: ignore[attr-defined]
        return True


def _use_text_spill() -> None:
    """Chunk texts go to a file under the cache root (:mod:`ragls.core.spill`), or the system's
    temporary folder if the cache root cannot be made; the first service of a process sets it."""
    if spill.current() is not None:
        return
    root = paths.default_cache_root()
    try:
        boundary.private_root(root, create=True)
    except OSError:
        root = Path(tempfile.gettempdir())
    spill.configure_once(root)

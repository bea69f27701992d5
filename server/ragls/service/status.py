"""Values the service reports: index status, progress ticks, added-document summaries (SPEC §7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from ragls.core.semantic import SemanticStatus
from ragls.service.tracked import hint


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """One progress tick of an index run: ``indexed_files`` of ``total_files`` done."""

    indexed_files: int
    total_files: int
    current_file: str


@dataclass(frozen=True, slots=True)
class SymbolCounts:
    """What the generation's symbol index holds (``rag/status`` ``symbols``)."""

    definitions: int = 0
    references: int = 0


@dataclass(frozen=True, slots=True)
class PersistenceStatus:
    """What status shows of a session's stored index (``rag/status`` ``cache``).

    ``state``: ``cold`` (nothing usable was stored: built from the files), ``loaded`` (started
    from the stored generation), ``saved`` (the index in memory is stored), ``unsaved`` (changes
    wait for the next save), ``reader`` (another process writes this workspace's index),
    ``failed`` (the last save failed; ``detail`` says why).
    """

    state: str
    location: str
    bytes_on_disk: int
    stored_generation: int | None
    written_at: float | None
    writer: bool
    owner_pid: int | None
    detail: str
    loaded_generation: int | None
    load_seconds: float | None
    # Problems of the stored index, each naming its cause (Persistence.warnings).
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """What a session's index holds and how it got there.

    The first four fields are the seed's; the rest say what a user needs to trust the index:
    the generation number (incremented by every committed index run), whether a run is under way,
    how many documents were added through the API, how many documents the corpus holds and how
    many of them BM25 holds (equal unless a configured cap or expiry dropped some, which
    :attr:`warnings` then says), what BM25's cap and expiry dropped, which files were skipped
    and why (counts by reason), the per-file errors of the last committed run, and the error of
    the last run if it was refused, cancelled or failed (the index it left is the previous
    generation). While a cold run is under way the live generation may be one of its partial
    generations (:attr:`partial`): it already carries the number the run will commit, and the
    counts of the files read so far.
    """

    file_count: int = 0
    chunk_count: int = 0
    last_index_time: datetime | None = None
    indexed_path: str | None = None
    generation: int = 0
    indexing: bool = False
    added_document_count: int = 0
    corpus_documents: int = 0
    bm25_documents: int | None = 0  # None: the session's pipeline has no BM25 stream
    bm25_evicted: int = 0
    bm25_expired: int = 0
    skipped: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    errors: tuple[str, ...] = ()
    last_error: str | None = None
    # Default-skipped directories holding files git tracks, with their counts (service.tracked).
    tracked_in_skipped: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # Secrets masked in the generation's chunks, by rule (ragls.ingest.secrets).
    redacted: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # Files chunked as line windows for want of a grammar, by language.
    windowed_languages: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # The stored index (SPEC §11); None when the session keeps its index in memory only.
    persistence: PersistenceStatus | None = None
    # The running index run's latest tick (files done of files to read); None when idle.
    progress: IndexProgress | None = None
    # The semantic stream's progress; None when the session's pipelines have none.
    semantic: SemanticStatus | None = None
    # Set while the live generation is a cold run's partial one (ragls.ingest.partial): how far
    # the run had got when it was committed (its files done of the files to read); None once
    # the generation is whole.
    partial: IndexProgress | None = None
    # The definitions and references of the generation's code files (ragls.ingest.tags).
    symbols: SymbolCounts = SymbolCounts()

    @property
    def warnings(self) -> tuple[str, ...]:
        """What makes answers incomplete or the index unsaved, in words a user can act on
        (empty when nothing does): BM25's coverage, then the stored index's problems."""
        stored = () if self.persistence is None else self.persistence.warnings
        return coverage_warnings(self.bm25_documents, self.corpus_documents) + stored

    @property
    def hints(self) -> tuple[str, ...]:
        """Likely surprises about what is not indexed, each with how to change it."""
        return tuple(hint(directory, count) for directory, count in self.tracked_in_skipped.items())


def coverage_warnings(bm25_documents: int | None, corpus_documents: int) -> tuple[str, ...]:
    """The warning every status and search answer carries when BM25 holds fewer documents than
    the corpus (only a configured ``bm25.maxDocuments`` or ``bm25.ttlSeconds`` can do that)."""
    if bm25_documents is None or bm25_documents >= corpus_documents:
        return ()
    return (
        f"BM25 covers {bm25_documents:,} of {corpus_documents:,} chunks: the configured "
        "bm25.maxDocuments or bm25.ttlSeconds dropped the rest, so those are found by the other "
        "streams only",
    )


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A document added through the API, as ``list_documents`` shows it."""

    id: str
    preview: str
    content_length: int
    metadata: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class PathExplanation:
    """Whether a path is indexed and, if not, exactly why (``RagService.explain_path``).

    ``reason`` is a skip reason of status (``ignored``, ``default-skip``, ``secret``...) or
    ``missing``/``pending``; ``detail`` names the rule: the ignore file, line and pattern, the
    cap and its value, the skipped directory.
    """

    path: str
    indexed: bool
    chunks: int = 0
    reason: str | None = None
    detail: str = ""
    format: str | None = None

"""Typed results of the custom methods, unstructured to camelCase JSON (protocol.md §4).

Each method answers with one of the attrs classes below; :func:`to_json` turns it into the
wire dict with one cattrs converter that renames every field to camelCase (``file_count`` is
``fileCount``), nested classes included. The values themselves come from the service layer's
JSON views (:mod:`ragls.service.wire`), shared with the CLI.
"""

from __future__ import annotations

from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_unstructure_fn, override

from ragls.core.documents import Document, SearchResult
from ragls.service import wire
from ragls.service.status import DocumentInfo, IndexProgress, IndexStatus


@attrs.frozen
class ResultView:
    id: str
    score: float
    content: str
    metadata: dict[str, Any]

    @classmethod
    def of(cls, result: SearchResult) -> ResultView:
        return cls(**wire.result_json(result))  # one definition of a result's JSON (the CLI's)


@attrs.frozen
class DocumentView:
    id: str
    content: str
    metadata: dict[str, Any]

    @classmethod
    def of(cls, document: Document) -> DocumentView:
        return cls(document.id, document.content, wire.metadata_json(document.metadata))


@attrs.frozen
class DocumentInfoView:
    id: str
    preview: str
    content_length: int
    metadata: dict[str, str]

    @classmethod
    def of(cls, info: DocumentInfo) -> DocumentInfoView:
        return cls(info.id, info.preview, info.content_length, dict(info.metadata))


@attrs.frozen
class WatcherView:
    state: str
    watches: int
    detail: str


@attrs.frozen
class ProgressView:
    """The running index run's latest tick: ``indexedFiles`` of ``totalFiles`` read."""

    indexed_files: int
    total_files: int
    current_file: str


@attrs.frozen
class PartialView:
    """How far a cold run had got when it committed the partial generation that answered:
    ``indexedFiles`` of its ``totalFiles``."""

    indexed_files: int
    total_files: int

    @classmethod
    def of(cls, partial: IndexProgress | None) -> PartialView | None:
        return None if partial is None else cls(partial.indexed_files, partial.total_files)


@attrs.frozen
class SymbolsView:
    """The generation's symbol index: its ``definitions`` and ``references``."""

    definitions: int
    references: int


@attrs.frozen
class SemanticView:
    """The semantic stream's embeddings: ``embedded`` chunks have a vector, ``pending`` wait,
    ``computed`` were embedded by this process (not loaded with a stored generation);
    ``failure``: why the model stopped, if it did."""

    model: str
    embedded: int
    pending: int
    computed: int
    failure: str | None


@attrs.frozen
class StatusAnswer:
    """``rag/status`` (and the answer of ``rag/index``, ``rag/clear``, ``rag/createSession``)."""

    session: str
    file_count: int
    chunk_count: int
    last_index_time: str | None
    indexed_path: str | None
    generation: int
    indexing: bool
    added_document_count: int
    corpus_documents: int
    bm25_documents: int | None
    bm25_evicted: int
    bm25_expired: int
    skipped: dict[str, int]
    errors: list[str]
    last_error: str | None
    warnings: list[str]
    root: str | None
    watcher: WatcherView | None
    pipeline: str
    index_runs: int
    changed_path_runs: int
    stale: bool
    tracked_in_skipped: dict[str, int]
    hints: list[str]
    redacted: dict[str, int]
    windowed_languages: dict[str, int]
    cache: dict[str, Any] | None
    last_run: dict[str, Any] | None
    progress: ProgressView | None
    semantic: SemanticView | None
    partial: bool
    symbols: SymbolsView

    @classmethod
    def of(
        cls,
        session: str,
        status: IndexStatus,
        *,
        root: str | None,
        watcher: WatcherView | None,
        pipeline: str,
        index_runs: int,
        changed_path_runs: int,
        stale: bool = False,
        last_run: dict[str, Any] | None = None,
    ) -> StatusAnswer:
        return cls(
            session=session,
            file_count=status.file_count,
            chunk_count=status.chunk_count,
            last_index_time=status.last_index_time.isoformat() if status.last_index_time else None,
            indexed_path=status.indexed_path,
            generation=status.generation,
            indexing=status.indexing,
            added_document_count=status.added_document_count,
            corpus_documents=status.corpus_documents,
            bm25_documents=status.bm25_documents,
            bm25_evicted=status.bm25_evicted,
            bm25_expired=status.bm25_expired,
            skipped=dict(status.skipped),
            errors=list(status.errors),
            last_error=status.last_error,
            warnings=list(status.warnings),
            root=root,
            watcher=watcher,
            pipeline=pipeline,
            index_runs=index_runs,
            changed_path_runs=changed_path_runs,
            stale=stale,
            tracked_in_skipped=dict(status.tracked_in_skipped),
            hints=list(status.hints),
            redacted=dict(status.redacted),
            windowed_languages=dict(status.windowed_languages),
            cache=wire.cache_json(status.persistence),
            last_run=last_run,
            progress=None
            if status.progress is None
            else ProgressView(
                status.progress.indexed_files,
                status.progress.total_files,
                status.progress.current_file,
            ),
            semantic=None
            if status.semantic is None
            else SemanticView(
                status.semantic.model,
                status.semantic.embedded,
                status.semantic.pending,
                status.semantic.computed,
                status.semantic.failure,
            ),
            partial=status.partial is not None,
            symbols=SymbolsView(status.symbols.definitions, status.symbols.references),
        )


@attrs.frozen
class SearchAnswer:
    """``partial``: answered from a cold run's partial generation, which held the files of
    ``progress`` (null when the generation is whole)."""

    session: str
    results: list[ResultView]
    warnings: list[str]
    generation: int
    stale: bool
    partial: bool = False
    progress: PartialView | None = None


@attrs.frozen
class PromptAnswer:
    session: str
    prompt: str
    warnings: list[str]
    generation: int
    stale: bool
    partial: bool = False
    progress: PartialView | None = None


@attrs.frozen
class AddedAnswer:
    session: str
    id: str


@attrs.frozen
class DocumentsAnswer:
    session: str
    documents: list[DocumentInfoView]


@attrs.frozen
class DocumentAnswer:
    session: str
    document: DocumentView | None


@attrs.frozen
class RemovedAnswer:
    session: str
    removed: bool


@attrs.frozen
class SessionsAnswer:
    sessions: list[StatusAnswer]


@attrs.frozen
class ExplainAnswer:
    session: str
    path: str
    indexed: bool
    chunks: int
    reason: str | None
    detail: str
    format: str | None


@attrs.frozen
class ClosedAnswer:
    session: str
    closed: bool


def wire_name(name: str) -> str:
    """A field's name on the wire: camelCase (``file_count`` is ``fileCount``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_CONVERTER = cattrs.Converter()


def register_answers(namespace: dict[str, Any], module: str) -> None:
    """Unstructure every attrs class ``module`` defines with camelCase keys (an answer class
    left out would go out with snake_case keys); answer modules call it on their globals."""
    for cls in [v for v in list(namespace.values()) if attrs.has(v) and v.__module__ == module]:
        renames = {
            field.name: override(rename=wire_name(field.name)) for field in attrs.fields(cls)
        }
        _CONVERTER.register_unstructure_hook(
            cls,
            make_dict_unstructure_fn(cls, _CONVERTER, **renames),  # type: ignore[arg-type]
        )


register_answers(globals(), __name__)


def to_json(answer: object) -> Any:
    """The wire JSON of a typed answer (camelCase keys, nested answers included)."""
    return _CONVERTER.unstructure(answer)

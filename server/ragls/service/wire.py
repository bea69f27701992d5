"""Service values as JSON (camelCase keys, numbers as numbers): the one wire form the daemon,
the CLI's JSON output and the MCP server share (SPEC §9 and protocol.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragls.core.documents import Document, SearchResult
from ragls.service.status import DocumentInfo, IndexStatus

# Chunk metadata written by the chunker, renamed for the wire; line numbers become integers.
_METADATA_NAMES = {"start_line": "startLine", "end_line": "endLine"}
_INTEGER_KEYS = frozenset(("startLine", "endLine"))


def metadata_json(metadata: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        name = _METADATA_NAMES.get(key, key)
        out[name] = int(value) if name in _INTEGER_KEYS and value.isdigit() else value
    return out


def result_json(result: SearchResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "score": result.score,
        "content": result.content,
        "metadata": metadata_json(result.metadata),
    }


def document_json(document: Document) -> dict[str, Any]:
    return {
        "id": document.id,
        "content": document.content,
        "metadata": metadata_json(document.metadata),
    }


def document_info_json(info: DocumentInfo) -> dict[str, Any]:
    return {
        "id": info.id,
        "preview": info.preview,
        "contentLength": info.content_length,
        "metadata": dict(info.metadata),
    }


def status_json(
    session: str, status: IndexStatus, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "session": session,
        "fileCount": status.file_count,
        "chunkCount": status.chunk_count,
        "lastIndexTime": status.last_index_time.isoformat() if status.last_index_time else None,
        "indexedPath": status.indexed_path,
        "generation": status.generation,
        "indexing": status.indexing,
        "addedDocumentCount": status.added_document_count,
        "corpusDocuments": status.corpus_documents,
        "bm25Documents": status.bm25_documents,
        "bm25Evicted": status.bm25_evicted,
        "bm25Expired": status.bm25_expired,
        "skipped": dict(status.skipped),
        "errors": list(status.errors),
        "lastError": status.last_error,
        "warnings": list(status.warnings),
    }
    if extra:
        out.update(extra)
    return out

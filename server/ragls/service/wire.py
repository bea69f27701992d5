"""Service values as JSON (camelCase keys, numbers as numbers): the one wire form the daemon,
the CLI's JSON output and the MCP server share (SPEC §9 and protocol.md)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ragls.core.documents import SearchResult
from ragls.ingest.indexer import IndexReport
from ragls.service.status import PersistenceStatus

# Chunk metadata written by the chunker, renamed for the wire; line numbers become integers.
_METADATA_NAMES = {"start_line": "startLine", "end_line": "endLine"}
_INTEGER_KEYS = frozenset(("startLine", "endLine"))


def metadata_json(metadata: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        name = _METADATA_NAMES.get(key, key)
        out[name] = int(value) if name in _INTEGER_KEYS and value.isdigit() else value
    return out


def ranked_json(results: list[SearchResult]) -> list[dict[str, Any]]:
    """Results as the CLI's JSON prints them: each with its ``rank`` (from 1) first."""
    return [{"rank": rank, **result_json(result)} for rank, result in enumerate(results, 1)]


def result_json(result: SearchResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "score": result.score,
        "content": result.content,
        "metadata": metadata_json(result.metadata),
    }


def cache_json(status: PersistenceStatus | None, now: float | None = None) -> dict[str, Any] | None:
    """A session's stored index as ``rag/status`` and ``ragls index --json`` show it (SPEC §11):
    where it is, its size on disk, the stored generation and its age, who writes it."""
    if status is None:
        return None
    now = time.time() if now is None else now
    written = status.written_at
    return {
        "state": status.state,
        "path": status.location,
        "bytesOnDisk": status.bytes_on_disk,
        "storedGeneration": status.stored_generation,
        "writtenAt": None
        if written is None
        else datetime.fromtimestamp(written, UTC).isoformat(timespec="seconds"),
        "ageSeconds": None if written is None else round(max(0.0, now - written), 1),
        "writer": status.writer,
        "ownerPid": status.owner_pid,
        "detail": status.detail,
        "loadedGeneration": status.loaded_generation,
        "loadSeconds": None if status.load_seconds is None else round(status.load_seconds, 3),
    }


def run_json(report: IndexReport | None) -> dict[str, Any] | None:
    """What the last committed run did: a warm start's reconciliation reads only changed files."""
    if report is None:
        return None
    return {
        "filesRead": report.files_read,
        "filesChunked": report.files_chunked,
        "filesRemoved": report.files_removed,
        "chunksAdded": report.chunks_added,
        "chunksRemoved": report.chunks_removed,
        "changedPathsRun": report.changed_paths_run,
    }

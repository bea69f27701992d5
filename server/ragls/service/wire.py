"""Service values as JSON (camelCase keys, numbers as numbers): the one wire form the daemon,
the CLI's JSON output and the MCP server share (SPEC §9 and protocol.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragls.core.documents import SearchResult

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

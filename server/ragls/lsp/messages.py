"""Typed params of the custom methods, structured with errors that name the field (SPEC §9).

pygls hands custom-method params over as namedtuples (keys that are Python keywords or start with
``_`` renamed); :func:`plain` turns them back into JSON values. Each method's params are an attrs
class below; :func:`structure` fills one from the JSON, reading each field by its declared type
under its wire name (camelCase), and raises ``JsonRpcInvalidParams`` (-32602) naming the field for
anything missing, mistyped or out of range. Structuring is done here rather than by pygls' own
converter on purpose: a message pygls cannot structure is never answered (CLIENTS.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import attrs
from pygls.exceptions import JsonRpcInvalidParams

from ragls.core.validation import MAX_QUERY_CHARS, MAX_TOP_K
from ragls.service.structure import MAX_DEFINITIONS, MAX_REFERENCES

MAX_SYMBOL_NAME_CHARS = 1_000

T = TypeVar("T")


def plain(value: Any) -> Any:
    """namedtuples (pygls' ``Object``) back to dicts, recursively; other values unchanged."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def wire(
    name: str,
    *,
    required: bool = False,
    low: int | None = None,
    high: int | None = None,
    max_chars: int | None = None,
) -> dict[str, Any]:
    """Field metadata: the field's wire name and its bounds."""
    return {"wire": name, "required": required, "low": low, "high": high, "max_chars": max_chars}


@attrs.frozen
class SessionParams:
    """Methods that take only a session: status, listDocuments, clear."""

    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class QueryParams:
    """rag/search and rag/buildContextPrompt."""

    query: str = attrs.field(
        default="", metadata=wire("query", required=True, max_chars=MAX_QUERY_CHARS)
    )
    top_k: int = attrs.field(default=5, metadata=wire("topK", low=1, high=MAX_TOP_K))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class IndexParams:
    session: str | None = attrs.field(default=None, metadata=wire("session"))
    path: str | None = attrs.field(default=None, metadata=wire("path"))
    force: bool = attrs.field(default=False, metadata=wire("force"))
    if_idle: bool = attrs.field(default=False, metadata=wire("ifIdle"))
    work_done_token: int | str | None = attrs.field(default=None, metadata=wire("workDoneToken"))


@attrs.frozen
class AddDocumentParams:
    content: str = attrs.field(default="", metadata=wire("content", required=True))
    metadata: dict[str, str] | None = attrs.field(default=None, metadata=wire("metadata"))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class DocumentParams:
    """rag/getDocument and rag/removeDocument."""

    id: str = attrs.field(default="", metadata=wire("id", required=True))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class ExplainParams:
    path: str = attrs.field(default="", metadata=wire("path", required=True))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class DefinitionsParams:
    """rag/definitions: ``match`` is "exact", "glob" or "fuzzy" (checked by the handler)."""

    name: str = attrs.field(
        default="", metadata=wire("name", required=True, max_chars=MAX_SYMBOL_NAME_CHARS)
    )
    match: str = attrs.field(default="exact", metadata=wire("match", max_chars=16))
    limit: int = attrs.field(default=50, metadata=wire("limit", low=1, high=MAX_DEFINITIONS))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class ReferencesParams:
    """rag/references: a ``name``, or a file (``uri`` or ``path``) and a ``position`` in it."""

    name: str | None = attrs.field(
        default=None, metadata=wire("name", max_chars=MAX_SYMBOL_NAME_CHARS)
    )
    uri: str | None = attrs.field(default=None, metadata=wire("uri"))
    path: str | None = attrs.field(default=None, metadata=wire("path"))
    position: dict[str, int] | None = attrs.field(default=None, metadata=wire("position"))
    limit: int = attrs.field(default=200, metadata=wire("limit", low=1, high=MAX_REFERENCES))
    session: str | None = attrs.field(default=None, metadata=wire("session"))


@attrs.frozen
class NamedSessionParams:
    """rag/createSession and rag/closeSession."""

    session: str = attrs.field(default="", metadata=wire("session", required=True))


def structure(cls: type[T], raw: Any) -> T:
    """``cls`` from the JSON params ``raw``; JsonRpcInvalidParams naming the field otherwise."""
    values = plain(raw)
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise JsonRpcInvalidParams("params must be an object")
    found: dict[str, Any] = {}
    for field in attrs.fields(cls):  # type: ignore[arg-type]
        spec = field.metadata
        name = spec["wire"]
        value = values.get(name)
        if value is None:
            if spec["required"]:
                raise JsonRpcInvalidParams(f"{name} is required")
            continue
        found[field.name] = _read(name, value, field.type, spec)
    return cls(**found)


def _read(name: str, value: Any, declared: Any, spec: Mapping[str, Any]) -> Any:
    kind = str(declared)
    if kind in ("str", "str | None"):
        if not isinstance(value, str):
            raise JsonRpcInvalidParams(f"{name} must be a string, got {_kind(value)}")
        limit = spec["max_chars"]
        if limit is not None and len(value) > limit:
            raise JsonRpcInvalidParams(f"{name} must be at most {limit} characters")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise JsonRpcInvalidParams(f"{name} must be an integer, got {_kind(value)}")
        low, high = spec["low"], spec["high"]
        if not low <= value <= high:
            raise JsonRpcInvalidParams(f"{name} must be between {low} and {high}, got {value}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise JsonRpcInvalidParams(f"{name} must be true or false, got {_kind(value)}")
        return value
    if kind == "int | str | None":
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
        raise JsonRpcInvalidParams(f"{name} must be a string or an integer")
    if kind == "dict[str, str] | None":
        if not isinstance(value, Mapping):
            raise JsonRpcInvalidParams(f"{name} must be an object, got {_kind(value)}")
        for key, item in value.items():
            if not isinstance(item, str):
                raise JsonRpcInvalidParams(f"{name}.{key} must be a string, got {_kind(item)}")
        return dict(value)
    if kind == "dict[str, int] | None":  # an LSP Position: {line, character}, both >= 0
        if not isinstance(value, Mapping):
            raise JsonRpcInvalidParams(f"{name} must be an object, got {_kind(value)}")
        for key in ("line", "character"):
            item = value.get(key)
            if isinstance(item, bool) or not isinstance(item, int) or item < 0:
                raise JsonRpcInvalidParams(f"{name}.{key} must be an integer of 0 or more")
        return {"line": value["line"], "character": value["character"]}
    raise TypeError(f"no reader for a field of type {kind}")  # a programming error


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return "null"

"""Workspace settings: what the daemon takes as ``initializationOptions`` and
``workspace/didChangeConfiguration`` (and any other front end as its configuration).

The keys (camelCase on the wire) and their defaults are documented in protocol.md. Parsing never
fails: :func:`parse_options` returns the options and a list of messages naming each invalid
field; the caller reports those to the user and keeps the previous options whole (a partially
applied configuration would be a state nobody wrote).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from ragls.core.analyzer import SynonymTable
from ragls.errors import InvalidArgumentError
from ragls.ingest.ignore.defaults import READMITTABLE_DIRS
from ragls.ingest.limits import Limits
from ragls.service.pipelines import PIPELINES, WORKSPACE

_LIMIT_KEYS = {
    "maxFileBytes": "max_file_bytes",
    "maxFiles": "max_files",
    "maxTotalBytes": "max_total_bytes",
    "maxChunksPerFile": "max_chunks_per_file",
    "maxChunks": "max_chunks",
    "maxDepth": "max_depth",
    "maxIgnoreFileBytes": "max_ignore_file_bytes",
    "maxIgnoreSelectors": "max_ignore_selectors",
}
KNOWN_KEYS = frozenset(
    {
        "indexOnStartup",
        "watch",
        "include",
        "exclude",
        "defaultSkips",
        "limits",
        "bm25",
        "pipeline",
        "synonyms",
        "debounceMs",
        "rescanIntervalSeconds",
    }
)


@dataclass(frozen=True, slots=True)
class WorkspaceOptions:
    index_on_startup: bool = True
    watch: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    default_skips: frozenset[str] = READMITTABLE_DIRS
    limits: Limits = field(default_factory=Limits.defaults)
    # None: BM25 holds every chunk for as long as the index does (SPEC §3).
    bm25_max_documents: int | None = None
    bm25_ttl_seconds: float | None = None
    pipeline: str = WORKSPACE.name
    synonyms: SynonymTable | None = None
    debounce_ms: int = 200
    rescan_interval_seconds: float = 30.0


def _strings(value: object, name: str, errors: list[str]) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        errors.append(f"{name} must be a list of non-empty strings")
        return None
    return tuple(value)


def _integer(value: object, name: str, low: int, high: int, errors: list[str]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        errors.append(f"{name} must be an integer from {low} to {high}")
        return None
    return value


def parse_options(
    raw: object, base: WorkspaceOptions | None = None
) -> tuple[WorkspaceOptions, list[str]]:
    """Options from ``raw`` on top of ``base``; on any error, ``base`` and the messages."""
    base = base or WorkspaceOptions()
    if raw is None:
        return base, []
    if not isinstance(raw, Mapping):
        return base, ["settings must be a JSON object"]
    errors: list[str] = []
    changes: dict[str, object] = {}
    for key in sorted(set(raw) - KNOWN_KEYS):
        errors.append(f"unknown setting {key!r}")
    for key, attribute in (("indexOnStartup", "index_on_startup"), ("watch", "watch")):
        if key in raw:
            if isinstance(raw[key], bool):
                changes[attribute] = raw[key]
            else:
                errors.append(f"{key} must be true or false")
    for key in ("include", "exclude"):
        if key in raw and (globs := _strings(raw[key], key, errors)) is not None:
            changes[key] = globs
    if "defaultSkips" in raw and (skips := _strings(raw["defaultSkips"], "defaultSkips", errors)):
        unknown = sorted({s.lower() for s in skips} - READMITTABLE_DIRS)
        if unknown:
            errors.append(f"defaultSkips may only name {sorted(READMITTABLE_DIRS)}; got {unknown}")
        else:
            changes["default_skips"] = frozenset(s.lower() for s in skips)
    elif "defaultSkips" in raw and raw["defaultSkips"] == []:
        changes["default_skips"] = frozenset()
    if "limits" in raw:
        _parse_limits(raw["limits"], base.limits, changes, errors)
    if "bm25" in raw:
        _parse_bm25(raw["bm25"], changes, errors)
    if "pipeline" in raw:
        if isinstance(raw["pipeline"], str) and raw["pipeline"] in PIPELINES:
            changes["pipeline"] = raw["pipeline"]
        else:
            errors.append(f"pipeline must be one of {sorted(PIPELINES)}, got {raw['pipeline']!r}")
    if "synonyms" in raw:
        try:
            changes["synonyms"] = SynonymTable.from_mapping(raw["synonyms"])
        except InvalidArgumentError as error:
            errors.append(str(error))
    if (
        "debounceMs" in raw
        and (delay := _integer(raw["debounceMs"], "debounceMs", 0, 60_000, errors)) is not None
    ):
        changes["debounce_ms"] = delay
    if "rescanIntervalSeconds" in raw:
        interval = _integer(
            raw["rescanIntervalSeconds"], "rescanIntervalSeconds", 1, 86_400, errors
        )
        if interval is not None:
            changes["rescan_interval_seconds"] = float(interval)
    if errors:
        return base, errors
    return dataclasses.replace(base, **changes), []  # type: ignore[arg-type]


def _parse_limits(raw: object, base: Limits, changes: dict[str, object], errors: list[str]) -> None:
    if not isinstance(raw, Mapping):
        errors.append("limits must be an object")
        return
    values: dict[str, int] = {}
    for key, value in raw.items():
        attribute = _LIMIT_KEYS.get(key)
        if attribute is None:
            errors.append(f"unknown setting limits.{key}")
            continue
        checked = _integer(value, f"limits.{key}", 1, 1 << 50, errors)
        if checked is not None:
            values[attribute] = checked
    if values:
        changes["limits"] = dataclasses.replace(base, **values)


def _parse_bm25(raw: object, changes: dict[str, object], errors: list[str]) -> None:
    if not isinstance(raw, Mapping):
        errors.append("bm25 must be an object")
        return
    for key in sorted(set(raw) - {"maxDocuments", "ttlSeconds"}):
        errors.append(f"unknown setting bm25.{key}")
    if "maxDocuments" in raw:
        if raw["maxDocuments"] is None:
            changes["bm25_max_documents"] = None
        else:
            count = _integer(raw["maxDocuments"], "bm25.maxDocuments", 1, 10_000_000, errors)
            if count is not None:
                changes["bm25_max_documents"] = count
    if "ttlSeconds" in raw:
        ttl = raw["ttlSeconds"]
        if ttl is None:
            changes["bm25_ttl_seconds"] = None
        elif isinstance(ttl, bool) or not isinstance(ttl, int | float) or not 0 < ttl <= 10**9:
            errors.append("bm25.ttlSeconds must be a positive number or null")
        else:
            changes["bm25_ttl_seconds"] = float(ttl)

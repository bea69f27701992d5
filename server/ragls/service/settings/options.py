"""Workspace settings: what the daemon takes as ``initializationOptions`` and
``workspace/didChangeConfiguration`` (and any other front end as its configuration).

The keys (camelCase on the wire), types, bounds and defaults are the settings schema
(:mod:`ragls.service.settings.schema`), from which protocol.md's table is generated. Parsing never
fails: :func:`parse_options` returns the options and a list of messages naming each invalid
field; the caller reports those to the user and keeps the previous options whole (a partially
applied configuration would be a state nobody wrote).

One configuration holds for every folder of a daemon: it never asks ``workspace/configuration``
for a folder's, so a repository's settings never reach it, and the clients fill the user-only
keys (:data:`ragls.service.settings.schema.USER_ONLY`) from their user's own settings
(protocol.md §7).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragls.core.analyzer import SynonymTable
from ragls.errors import InvalidArgumentError
from ragls.ingest.ignore.defaults import READMITTABLE_DIRS
from ragls.ingest.limits import Limits
from ragls.service.persistence.stores import Publication, check_store
from ragls.service.pipelines import WORKSPACE
from ragls.service.settings.schema import BY_KEY, GROUPS, SETTINGS, check


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# Which WorkspaceOptions field (or Limits field) each schema key sets, and how its JSON value
# becomes the field's value; keys of one group (limits.*) land in one Limits.
LIMIT_FIELDS = {s.key: _snake(s.path[1]) for s in SETTINGS if s.path[0] == "limits"}
# Every other key names its field: camelCase to snake_case, a group's dot as an underscore
# (``bm25.maxDocuments`` sets ``bm25_max_documents``).
FIELDS = {s.key: _snake(s.key.replace(".", "_")) for s in SETTINGS if s.key not in LIMIT_FIELDS}
CONVERT: dict[str, Callable[[Any], Any]] = {
    "include": tuple,
    "allowedRoots": tuple,
    "secretNames": tuple,
    "exclude": tuple,
    "defaultSkips": lambda skips: frozenset(skip.lower() for skip in skips),
    "bm25.ttlSeconds": lambda ttl: None if ttl is None else float(ttl),
    "rescanIntervalSeconds": float,
    "synonyms": lambda table: None if table is None else SynonymTable.from_mapping(table),
    "persistence.store": lambda value: None if value is None else check_store(value),
}


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
    allowed_roots: tuple[str, ...] = ()
    secret_detection: bool = True
    secret_names: tuple[str, ...] = ()
    low_priority_indexing: bool = True
    persistence_enabled: bool = True
    persistence_cache_dir: str | None = None
    persistence_store: str | None = (
        None  # None: from the environment (ragls.service.persistence.stores)
    )
    # Not a setting: what `ragls index --store` publishes under (None: consume, never write).
    publication: Publication | None = None


def _flatten(raw: Mapping[str, Any], errors: list[str]) -> dict[str, Any]:
    """The settings given, by schema key (``limits.maxFiles``); unknown keys are errors."""
    given: dict[str, Any] = {}
    for key in sorted(raw):
        value = raw[key]
        if key in BY_KEY:
            given[key] = value
        elif key in GROUPS:
            if not isinstance(value, Mapping):
                errors.append(f"{key} must be an object")
                continue
            for inner in sorted(value):
                dotted = f"{key}.{inner}"
                if dotted in BY_KEY:
                    given[dotted] = value[inner]
                else:
                    errors.append(f"unknown setting {dotted}")
        else:
            errors.append(f"unknown setting {key!r}")
    return given


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
    limits: dict[str, int] = {}
    for key, value in _flatten(raw, errors).items():
        message = check(BY_KEY[key], value)
        if message is not None:
            errors.append(message)
            continue
        if key in LIMIT_FIELDS:
            limits[LIMIT_FIELDS[key]] = value
            continue
        try:
            changes[FIELDS[key]] = CONVERT.get(key, lambda v: v)(value)
        except InvalidArgumentError as error:  # the synonym table names what is wrong
            errors.append(str(error))
    if limits:
        changes["limits"] = dataclasses.replace(base.limits, **limits)
    if errors:
        return base, errors
    return dataclasses.replace(base, **changes), []  # type: ignore[arg-type]

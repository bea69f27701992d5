"""The workspace settings, defined once: names, types, defaults, bounds, descriptions.

Everything else is derived from :data:`SETTINGS`:
:func:`ragls.service.settings.options.parse_options` validates with it, and
``python -m ragls.service.settings.files --write`` regenerates the clients' copies
(:mod:`ragls.service.settings.files`); a test fails when any of them is stale. Keys are the
wire names (camelCase; a dot nests: ``limits.maxFiles`` is ``{"limits": {"maxFiles": ...}}``).

Which settings a repository may set (the ``scope``). Editors take settings from the user and from
the folder that is opened (VS Code's ``.vscode/settings.json``, a multi-root ``.code-workspace``),
and the folder is whatever was cloned. The rule: **a setting is user-only (scope ``machine``) when
a repository's own value for it could make the daemon read or write outside the opened folders,
reach another store, or weaken a protection the user relies on**. That is:

* where data is written or read from: ``persistence.cacheDir`` (the index's folder),
  ``persistence.enabled`` (whether indexed text lands on disk at all), ``allowedRoots`` (folders
  beyond the workspace, and the home directory or system directories);
* what the daemon connects to: ``persistence.store`` (a database whose rows become search results
  and prompts, reached with the user's ``~/.pgpass``);
* protections: ``secretDetection`` (masking), ``secretNames`` (a workspace list would *replace*
  the user's, not add to it), and ``limits.*`` (the caps that bound a session's memory and time;
  a repository raising them is the large-repository attack they exist for).

Every other setting only chooses which of the folder's own files are indexed (``include``,
``exclude``, ``defaultSkips``: none of them can re-admit a secret name or the always-skipped
directories) or how they are ranked and refreshed: a repository already controls its own
content, so these give it nothing it lacks, and they stay ``window`` or ``resource``.
``machine`` rather than ``application``: in a remote window the daemon runs on the remote
machine, whose paths these are. The VS Code extension also takes these keys from the user's
settings alone (``inspect(key).globalValue``), in case a workspace value gets past VS Code's
scope filter, and warns about the ones a workspace set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragls.ingest.ignore.defaults import READMITTABLE_DIRS
from ragls.ingest.limits import Limits
from ragls.service.pipelines import PIPELINES, WORKSPACE

_LIMITS = Limits.defaults()
SKIPPABLE = sorted(READMITTABLE_DIRS)
# VS Code's scopes that a workspace's settings never set.
USER_SCOPES = ("application", "machine")


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    kind: str  # boolean | integer | number | string | strings | object
    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False
    scope: str = "window"  # VS Code: window | resource | machine (user-only, see above)

    @property
    def user_only(self) -> bool:
        """Whether only the user's own settings may set it, never a workspace's."""
        return self.scope in USER_SCOPES

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.key.split("."))


SETTINGS: tuple[Setting, ...] = (
    Setting("indexOnStartup", "boolean", True, "Index workspace folders when they open."),
    Setting("watch", "boolean", True, "Keep the index fresh from file-system events."),
    Setting(
        "include",
        "strings",
        [],
        "Gitignore-style globs relative to the folder; if set, only matching files are indexed; "
        "naming a default-skipped directory (`build/**`) re-admits it.",
        scope="resource",
    ),
    Setting(
        "exclude",
        "strings",
        [],
        "Gitignore-style globs of files and directories never indexed.",
        scope="resource",
    ),
    Setting(
        "defaultSkips",
        "strings",
        SKIPPABLE,
        "Which of the default-skipped directories stay skipped (`.git`, `node_modules`, "
        "`vendor`, `.svn`, `.hg`, `.ssh`, `.aws`, `.gnupg`, `.kube` and secret files always are).",
        choices=tuple(SKIPPABLE),
        scope="resource",
    ),
    Setting(
        "limits.maxFileBytes",
        "integer",
        _LIMITS.max_file_bytes,
        "Files larger than this many bytes are skipped (`too-large`).",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxChunksPerFile",
        "integer",
        _LIMITS.max_chunks_per_file,
        "Files with more chunks are skipped (`too-many-chunks`).",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxFiles",
        "integer",
        _LIMITS.max_files,
        "A folder with more files is refused (IndexFailed); the previous index stays.",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxTotalBytes",
        "integer",
        _LIMITS.max_total_bytes,
        "A folder holding more bytes is refused; the previous index stays.",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxChunks",
        "integer",
        _LIMITS.max_chunks,
        "A folder that would hold more chunks is refused: with every stream holding every "
        "chunk, this and the two caps above bound a session's memory.",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxDepth",
        "integer",
        _LIMITS.max_depth,
        "Deeper directories are skipped (`too-deep`).",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxIgnoreFileBytes",
        "integer",
        _LIMITS.max_ignore_file_bytes,
        "An ignore file larger than this makes its directory skipped whole.",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "limits.maxIgnoreSelectors",
        "integer",
        _LIMITS.max_ignore_selectors,
        "An ignore file with more patterns makes its directory skipped whole.",
        minimum=1,
        scope="machine",
    ),
    Setting(
        "pipeline",
        "string",
        WORKSPACE.name,
        "The ranking: `workspace` is the code stream (identifier sub-tokens, symbol and path "
        "fields; docs/retrieval.md has the measurements), `seed` is BM25 0.6 + TF-IDF 0.4 over "
        "plain words; `workspace-semantic` adds static embeddings, computed in the background "
        "(needs the `semantic` extra); the others are measurement presets. Applies at once: a "
        "stream the new pipeline needs is built from the stored chunks, nothing is re-read.",
        choices=tuple(PIPELINES),
    ),
    Setting(
        "bm25.maxDocuments",
        "integer",
        None,
        "Cap the seed pipeline's BM25 stream at this many chunks (least recently accessed "
        "evicted); unset: it holds every chunk. Answers carry a warning when the cap drops "
        "chunks. Sessions opened later.",
        minimum=1,
        maximum=10_000_000,
        nullable=True,
    ),
    Setting(
        "bm25.ttlSeconds",
        "number",
        None,
        "Expire the seed pipeline's BM25 documents this long after their last access; unset: "
        "never. Sessions opened later.",
        minimum=1,
        maximum=1e9,
        nullable=True,
    ),
    Setting(
        "synonyms",
        "object",
        None,
        'Replaces the query synonym table (both directions): `{"word": ["partner", ...]}`.',
        nullable=True,
    ),
    Setting(
        "secretDetection",
        "boolean",
        True,
        "Mask secrets found inside files (keys, tokens, private key blocks, random values "
        "assigned to *_TOKEN / *_SECRET / PASSWORD) before indexing; off only when every folder "
        "you open is known to be clean. Secret file names are never read either way.",
        scope="machine",
    ),
    Setting(
        "secretNames",
        "strings",
        [],
        "More file names never read, as globs over the name (`*.secret`) or, with a `/`, over "
        "the path (`config/prod/*.yml`); added to the built-in secret names, which stay.",
        scope="machine",
    ),
    Setting(
        "allowedRoots",
        "strings",
        [],
        "Absolute paths of folders the daemon may index beyond its workspace folders "
        "(`rag/index` of a named session), and which may be indexed although they are the home "
        "directory, the file-system root or a system directory (refused otherwise).",
        scope="machine",
    ),
    Setting(
        "persistence.enabled",
        "boolean",
        True,
        "Keep each folder's index on disk, so that a restart loads it and re-reads only the "
        "files changed since (docs/storage.md). Sessions opened later.",
        scope="machine",
    ),
    Setting(
        "persistence.cacheDir",
        "string",
        None,
        "Where indexes are kept; unset: `$RAGLS_CACHE_DIR`, else `$XDG_CACHE_HOME/ragls`, else "
        "`~/.cache/ragls`. Sessions opened later.",
        scope="machine",
        nullable=True,
    ),
    Setting(
        "persistence.store",
        "string",
        None,
        "Which store holds the index: `embedded` (the cache folder) or a `postgresql://` URI of "
        "a team index to consume (docs/storage.md); keep the password in `~/.pgpass`. Unset: "
        "`$RAGLS_STORE_FILE`'s first line, else `$RAGLS_STORE`, else `embedded`. Sessions "
        "opened later.",
        scope="machine",
        nullable=True,
    ),
    Setting(
        "debounceMs",
        "integer",
        200,
        "Quiet time in milliseconds before file changes are indexed (at most 2 s after the first).",
        minimum=0,
        maximum=60_000,
    ),
    Setting(
        "rescanIntervalSeconds",
        "integer",
        30,
        "Period of the rescans of folders whose watcher is not fully working.",
        minimum=1,
        maximum=86_400,
    ),
    Setting(
        "lowPriorityIndexing",
        "boolean",
        True,
        "Run the indexing worker processes (big runs: a first index, a checkout of many files) "
        "at a lower CPU priority (niceness 10), so the editor, builds and tests keep their "
        "share of the cores; false: the daemon's own priority. From the next run.",
    ),
)

BY_KEY = {setting.key: setting for setting in SETTINGS}
GROUPS = frozenset(setting.path[0] for setting in SETTINGS if len(setting.path) > 1)
USER_ONLY = tuple(setting.key for setting in SETTINGS if setting.user_only)


def check(setting: Setting, value: object) -> str | None:
    """Why ``value`` is not valid for ``setting`` (a message naming the key), or None."""
    key = setting.key
    if value is None:
        return None if setting.nullable else f"{key} must not be null"
    kind = setting.kind
    if kind == "boolean":
        return None if isinstance(value, bool) else f"{key} must be true or false"
    if kind in ("integer", "number"):
        number_types: tuple[type, ...] = (int,) if kind == "integer" else (int, float)
        if isinstance(value, bool) or not isinstance(value, number_types):
            return _range_message(setting)
        low = setting.minimum if setting.minimum is not None else float("-inf")
        high = setting.maximum if setting.maximum is not None else 1 << 50
        return None if low <= value <= high else _range_message(setting)  # type: ignore[operator]
    if kind == "string":
        if isinstance(value, str) and (not setting.choices or value in setting.choices):
            return None
        if not setting.choices:
            return f"{key} must be a string" + (" or null" if setting.nullable else "")
        return f"{key} must be one of {sorted(setting.choices)}, got {value!r}"
    if kind == "strings":
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            return f"{key} must be a list of non-empty strings"
        unknown = (
            sorted({v.lower() for v in value} - set(setting.choices)) if setting.choices else []
        )
        return f"{key} may only name {list(setting.choices)}; got {unknown}" if unknown else None
    if kind == "object":
        return None  # its own parser names what is wrong inside
    raise AssertionError(f"unknown setting kind {kind}")


def _range_message(setting: Setting) -> str:
    kind = "an integer" if setting.kind == "integer" else "a positive number"
    if setting.kind == "number":
        return f"{setting.key} must be {kind}" + (" or null" if setting.nullable else "")
    high = int(setting.maximum) if setting.maximum is not None else 1 << 50
    return f"{setting.key} must be {kind} from {int(setting.minimum or 0)} to {high}"

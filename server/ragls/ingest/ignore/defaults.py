"""Default skips and secret names (SPEC §8, seed "Ignore files and default skips"). Data only.

* ``ALWAYS_SKIPPED_DIRS``: nine names checked, case-insensitively, against every component of
  every candidate path (the last one included, so a ``.git`` file is skipped too). Nothing
  re-admits them.
* ``READMITTABLE_DIRS``: ten names pruned, case-insensitively, wherever the walk meets them as
  directories; configuration (``default_skips`` or an include glob) may re-admit them.
* ``SECRET_FILE_NAMES`` / ``SECRET_FILE_PREFIXES``: ten secret file-name patterns matched
  case-insensitively anywhere (``.env`` and ``.env.*``); nothing re-admits them. ``.envrc`` and
  ``id_rsa.pub`` are not secret names.
* ``IGNORE_FILE_NAMES``: the per-directory ignore files, read in this order, never ingested.
"""

from __future__ import annotations

ALWAYS_SKIPPED_DIRS: frozenset[str] = frozenset(
    (".aws", ".git", ".gnupg", ".hg", ".kube", ".ssh", ".svn", "node_modules", "vendor")
)
READMITTABLE_DIRS: frozenset[str] = frozenset(
    (
        ".gradle",
        ".idea",
        ".next",
        ".vscode",
        "__pycache__",
        "build",
        "coverage",
        "dist",
        "out",
        "target",
    )
)
DEFAULT_SKIPPED_DIRS: frozenset[str] = ALWAYS_SKIPPED_DIRS | READMITTABLE_DIRS

SECRET_FILE_NAMES: frozenset[str] = frozenset(
    (
        ".env",
        ".git-credentials",
        ".netrc",
        ".npmrc",
        ".pypirc",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
    )
)
SECRET_FILE_PREFIXES: tuple[str, ...] = (".env.",)

IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".tnsignore")


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_FILE_NAMES or lowered.startswith(SECRET_FILE_PREFIXES)


def has_always_skipped_component(relative: str) -> bool:
    """True if any component of the ``/``-separated ``relative`` path is one of the nine."""
    return any(part.lower() in ALWAYS_SKIPPED_DIRS for part in relative.split("/"))


def is_ignore_file_name(name: str) -> bool:
    return name in IGNORE_FILE_NAMES

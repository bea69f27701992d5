"""Default skips and secret names (SPEC §8, seed "Ignore files and default skips"). Data only.

* ``ALWAYS_SKIPPED_DIRS``: nine names checked, case-insensitively, against every component of
  every candidate path (the last one included, so a ``.git`` file is skipped too). Nothing
  re-admits them.
* ``READMITTABLE_DIRS``: ten names pruned, case-insensitively, wherever the walk meets them as
  directories; configuration (``default_skips`` or an include glob) may re-admit them.
* ``SECRET_FILE_NAMES``, ``SECRET_FILE_PREFIXES``, ``SECRET_FILE_SUFFIXES``,
  ``SECRET_NAME_GLOBS`` and ``SECRET_PATH_SUFFIXES``: secret file names matched
  case-insensitively anywhere (``.env`` and ``.env.*``, SSH keys, credential and token files,
  private keys and keystores, Terraform state and variables, Docker and Kubernetes credentials);
  nothing re-admits them. ``.envrc`` and ``id_rsa.pub`` are not secret names.
* ``IGNORE_FILE_NAMES``: the per-directory ignore files, read in this order, never ingested.
"""

from __future__ import annotations

import fnmatch

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
        ".dockercfg",
        ".env",
        ".git-credentials",
        ".htpasswd",
        ".netrc",
        ".npmrc",
        ".pgpass",
        ".pypirc",
        ".s3cfg",
        "credentials.json",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
        "kubeconfig",
        "secrets.yaml",
        "secrets.yml",
    )
)

SECRET_FILE_PREFIXES: tuple[str, ...] = (".env.",)

# Private keys, keystores and infrastructure state that holds credentials.
SECRET_FILE_SUFFIXES: tuple[str, ...] = (
    ".jks",
    ".key",
    ".keystore",
    ".p12",
    ".pem",
    ".pfx",
    ".tfstate",
    ".tfstate.backup",
    ".tfvars",
)

# fnmatch patterns over the lower-cased file name.
SECRET_NAME_GLOBS: tuple[str, ...] = ("service-account*.json", "*.tfvars.json")

# Secret by where they live: the last path components, lower-cased.
SECRET_PATH_SUFFIXES: tuple[str, ...] = (".docker/config.json", ".kube/config")

IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".tnsignore")


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in SECRET_FILE_NAMES
        or lowered.startswith(SECRET_FILE_PREFIXES)
        or lowered.endswith(SECRET_FILE_SUFFIXES)
        or any(fnmatch.fnmatchcase(lowered, glob) for glob in SECRET_NAME_GLOBS)
    )


def is_secret_path(relative: str) -> bool:
    """A secret by its name or by where it lives (``.docker/config.json``)."""
    lowered = relative.lower()
    return is_secret_name(lowered.rsplit("/", 1)[-1]) or any(
        lowered == suffix or lowered.endswith("/" + suffix) for suffix in SECRET_PATH_SUFFIXES
    )


def always_skipped_prefix(relative: str) -> str | None:
    """The leading part of ``relative`` up to and including its first component that is one of
    the nine (``web/node_modules`` for ``web/node_modules/dep/a.js``), or None."""
    parts = relative.split("/")
    for depth, part in enumerate(parts, start=1):
        if part.lower() in ALWAYS_SKIPPED_DIRS:
            return "/".join(parts[:depth])
    return None


def is_ignore_file_name(name: str) -> bool:
    return name in IGNORE_FILE_NAMES

"""Where the embedded store keeps each workspace's generations (SPEC §11).

The cache root is ``$RAGLS_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/ragls``, else
``~/.cache/ragls`` (a setting can name another). Each workspace gets a folder named after its
root's last component and a hash of its resolved path (``flask-3f2a9c0d1e4b5a69``), with a
``workspace.json`` that records the root, so ``ragls cache list`` can say which folder a cache
belongs to and whether that folder still exists. Both folders are private to the user
(:mod:`ragls.store.boundary`): created ``0700``, and refused when another user owns them or
may write them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from pathlib import Path

from ragls.store import boundary, files

CACHE_ENVIRONMENT = "RAGLS_CACHE_DIR"
WORKSPACE_FILE = "workspace.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_cache_root() -> Path:
    configured = os.environ.get(CACHE_ENVIRONMENT)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "ragls"


def cache_root(configured: str | os.PathLike[str] | None = None) -> Path:
    """The configured root if given (a setting), else :func:`default_cache_root`."""
    return Path(configured).expanduser() if configured else default_cache_root()


def workspace_key(root: Path) -> str:
    resolved = str(root.resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = _UNSAFE.sub("_", root.resolve().name)[:40] or "root"
    return f"{name}-{digest}"


def workspace_folder(root: Path, configured: str | os.PathLike[str] | None = None) -> Path:
    return cache_root(configured) / workspace_key(root)


def prepare_workspace_folder(folder: Path, root: Path) -> None:
    """Create ``folder`` (and the cache root above it) private to the user, with its
    ``workspace.json`` naming ``root``, if they do not exist yet; OSError when they cannot be
    created, UnsafeEntry (an OSError) when what is there is not private to the user."""
    boundary.private_root(folder.parent, create=True)
    boundary.private_folder(folder, create=True)
    marker = folder / WORKSPACE_FILE
    if not os.path.lexists(marker):
        text = json.dumps({"root": str(root), "created": time.time()})
        temporary = folder / f"{WORKSPACE_FILE}.{secrets.token_hex(4)}"
        files.write_durably(temporary, text.encode())
        os.replace(temporary, marker)


def check_workspace_folder(folder: Path) -> bool:
    """Whether ``folder`` exists, after checking that it and the cache root above it are
    private to the user (UnsafeEntry if not): what a reader does before it reads anything."""
    try:
        boundary.private_root(folder.parent, create=False)
        boundary.private_folder(folder, create=False)
    except FileNotFoundError:
        return False
    return True

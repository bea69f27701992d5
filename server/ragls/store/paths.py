"""Where the embedded store keeps each workspace's generations (SPEC §11).

The cache root is ``$RAGLS_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/ragls``, else
``~/.cache/ragls`` (a setting can name another). Each workspace gets a folder named after its
root's last component and a hash of its resolved path (``flask-3f2a9c0d1e4b5a69``), with a
``workspace.json`` that records the root, so ``ragls cache list`` can say which folder a cache
belongs to and whether that folder still exists.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

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

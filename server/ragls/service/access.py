"""Who may reach a network front end (``ragls serve --tcp``, ``ragls mcp --http``;
docs/security.md): loopback addresses by default, and a random token kept in a file only its
user can read."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def write_token(folder: Path, token: str, name: str) -> Path:
    """Write ``token`` to ``folder/name`` with mode 0600 (a folder of mode 0700 if new)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / name
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(token + "\n")
    return path

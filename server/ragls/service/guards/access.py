"""Who may reach a network front end (``ragls serve --tcp``, ``ragls mcp --http``;
docs/security.md): loopback addresses by default, and a random token kept in a file only its
user can read."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

from ragls.errors import InvalidArgumentError
from ragls.store import boundary


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen_address(text: str, option: str, allow_remote: bool) -> tuple[str, int]:
    """(host, port) of ``option``'s ``HOST:PORT`` (or ``PORT``; port 0 picks a free one):
    InvalidArgumentError for a malformed one, or a non-loopback host without ``allow_remote``."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise InvalidArgumentError(f"{option} needs HOST:PORT or PORT, got {text!r}")
    host = host.strip("[]") or "127.0.0.1"
    if not is_loopback(host) and not allow_remote:
        raise InvalidArgumentError(
            f"{option} {text}: {host} is not a loopback address; "
            "pass --allow-remote to listen on it"
        )
    return host, int(port)


def write_token(folder: Path, token: str, name: str) -> Path:
    """Write ``token`` to ``folder/name`` with mode 0600, in the cache root (created 0700 if
    new, refused with UnsafeEntry if another user owns it or may write it)."""
    boundary.private_root(folder, create=True)
    path = folder / name
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(token + "\n")
    return path

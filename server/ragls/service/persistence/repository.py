"""What a shared store keys a checkout's index by: the repository's identity and its commit.

A team index is shared between checkouts at different paths on different machines, so its key
cannot be a path. :func:`identify` asks git for:

* the **repository**: the ``origin`` remote's URL (else the first remote's), normalised so
  that every way of cloning the same repository gives one name: scheme, user, password, port
  and a ``.git`` suffix dropped, the host lower-cased, ``git@host:owner/name`` read as
  ``host/owner/name``. ``https://github.com/Owner/Name.git`` and ``git@github.com:Owner/Name``
  are both ``github.com/Owner/Name``. A folder below the work tree's top is part of the
  identity (``github.com/Owner/Name//server``): it is another index.
* the **commit**: ``HEAD``, and its ancestors newest first (``git rev-list``), so a consumer
  whose commit has not been published yet loads the nearest one that has.
* whether the work tree has uncommitted changes to tracked files (a publisher warns: what it
  publishes is not exactly that commit; consumers still reconcile every file by its content).

Outside a git work tree, or without git, there is no identity (:func:`identify` returns None).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

GIT_TIMEOUT_SECONDS = 10
MAX_ANCESTORS = 1000  # how far back a consumer looks for a published commit
_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!/)(.+)$")  # git@host:owner/name


@dataclass(frozen=True, slots=True)
class Checkout:
    repository: str
    commit: str
    ancestors: tuple[str, ...]  # the commit first, then its ancestors, newest first
    dirty: bool


def _git(root: Path, *arguments: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *arguments],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace")


def normalise_remote(url: str) -> str:
    """One name for every spelling of a remote URL (see the module docstring)."""
    url = url.strip()
    scp = _SCP_LIKE.match(url) if "://" not in url else None
    if scp is not None:
        host, path = scp.group(1), scp.group(2)
    elif "://" in url:
        parts = urlsplit(url)
        host, path = (parts.hostname or ""), parts.path
    else:  # a local path used as a remote
        host, path = "", url
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    return f"{host.lower()}/{path}" if host else path


def remote_identity(root: Path) -> str | None:
    remotes = (_git(root, "remote") or "").split()
    if not remotes:
        return None
    name = "origin" if "origin" in remotes else sorted(remotes)[0]
    url = _git(root, "remote", "get-url", name)
    return normalise_remote(url) if url and url.strip() else None


def identify(root: Path, *, max_ancestors: int = MAX_ANCESTORS) -> Checkout | None:
    """``root``'s repository identity, commit, ancestors and dirtiness; None outside git, in a
    repository without a remote or without a commit."""
    repository = remote_identity(root)
    head = (_git(root, "rev-parse", "HEAD") or "").strip()
    if repository is None or not head:
        return None
    prefix = (_git(root, "rev-parse", "--show-prefix") or "").strip().strip("/")
    if prefix:
        repository = f"{repository}//{prefix}"
    listed = (_git(root, "rev-list", f"--max-count={max_ancestors}", "HEAD") or "").split()
    ancestors = tuple(listed) if listed and listed[0] == head else (head,)
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return Checkout(repository, head, ancestors, dirty=bool(status and status.strip()))

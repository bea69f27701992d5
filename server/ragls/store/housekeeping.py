"""What ``ragls cache list`` shows and ``ragls cache clean`` removes (SPEC §11).

Nothing here runs unless asked: caches of workspaces that no longer exist are listed as such and
removed only by ``ragls cache clean``. A cache is removed only while its writer lock can be
taken, so the index of a running daemon is never pulled from under it. Only real folders of the
user's own are listed or removed: a link in the cache root is neither followed nor removed
(:mod:`ragls.store.boundary`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ragls.store import boundary
from ragls.store.boundary import UnsafeEntry
from ragls.store.embedded import LOCK, folder_size, published
from ragls.store.locking import WriterLock
from ragls.store.paths import WORKSPACE_FILE

_WORKSPACE_FILE_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class CachedWorkspace:
    folder: Path
    root: str | None  # the workspace it belongs to (None: its workspace.json is unreadable)
    exists: bool  # whether that workspace folder still exists
    bytes_on_disk: int
    generation: int | None
    written_at: float | None
    owner_pid: int | None  # a live process writing it


def cached_workspaces(cache_root: Path) -> list[CachedWorkspace]:
    """Every workspace cache under ``cache_root``, by folder name."""
    if not cache_root.is_dir():
        return []
    found = []
    for folder in sorted(cache_root.iterdir()):
        if not boundary.is_folder(folder) or not os.path.lexists(folder / WORKSPACE_FILE):
            continue  # a link is never followed: what it points to is not this cache's
        root = None
        try:
            described = json.loads(
                boundary.read_file(folder / WORKSPACE_FILE, _WORKSPACE_FILE_LIMIT)
            )
            root = str(described["root"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        generation, written = published(folder)
        found.append(
            CachedWorkspace(
                folder=folder,
                root=root,
                exists=root is not None and Path(root).is_dir(),
                bytes_on_disk=folder_size(folder),
                generation=generation,
                written_at=written,
                owner_pid=WriterLock(folder / LOCK).owner_pid(),
            )
        )
    return found


def remove_cache(cached: CachedWorkspace) -> str | None:
    """Remove one workspace's cache; the reason if it cannot be (a process writes it, it is
    not a folder of this user's own)."""
    lock = WriterLock(cached.folder / LOCK)
    try:
        boundary.private_folder(cached.folder, create=False)
        try:
            taken = lock.try_acquire()
        except UnsafeEntry:
            taken = True  # no ragls process locks a link or a FIFO: nobody writes this cache
        if not taken:
            owner = lock.owner_pid()
            return f"process {owner} is using it" if owner else "another process is using it"
        boundary.remove_folder(cached.folder)
    except OSError as error:
        return str(error)
    finally:
        lock.release()
    return None

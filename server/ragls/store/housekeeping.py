"""What ``ragls cache list`` shows and ``ragls cache clean`` removes (SPEC §11).

Nothing here runs unless asked: caches of workspaces that no longer exist are listed as such and
removed only by ``ragls cache clean``. A cache is removed only while its writer lock can be
taken, so the index of a running daemon is never pulled from under it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ragls.store.embedded import LOCK, folder_size, published
from ragls.store.locking import WriterLock
from ragls.store.paths import WORKSPACE_FILE


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
        if not folder.is_dir() or not (folder / WORKSPACE_FILE).exists():
            continue
        root = None
        try:
            described = json.loads((folder / WORKSPACE_FILE).read_text(encoding="utf-8"))
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
    """Remove one workspace's cache; the reason if it cannot be (a process writes it)."""
    lock = WriterLock(cached.folder / LOCK)
    try:
        if not lock.try_acquire():
            owner = lock.owner_pid()
            return f"process {owner} is using it" if owner else "another process is using it"
        shutil.rmtree(cached.folder)
    except OSError as error:
        return str(error)
    finally:
        lock.release()
    return None

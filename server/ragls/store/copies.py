"""A consumer's local copies of a team index's parts (docs/storage.md, "A team index").

A consumer loads the generation published for its commit at every start. The manifest in the
database names each part by its SHA-256, so a copy kept on disk under that name stands in for
the part whenever a manifest names the same bytes: a restart at the same published commit
reads the pointer and the manifest from the database and the parts from the disk, instead of
the whole generation over the network. The database stays the truth: it says which generation
is published and which bytes it holds, and a copy is used only when its size and checksum are
those the manifest gives (otherwise it is removed and the part read from the database again).

Copies live in the workspace's cache folder, in ``team/``, so ``ragls cache list`` counts them
and ``ragls cache clean PATH`` removes them with the rest. After each load the copies that load
used are kept and, of the others, the most recently used up to the same total size (so a branch
switched back to is still fast); the rest are removed. Copies are a cache: they are written
without fsync (a torn one fails its checksum and is read again), and one that cannot be written
(a full disk, a read-only cache) costs a warning, never the load. ``team/`` is checked to be a
folder of the user's own (not a link) and held open while it is used: copies are read, written,
listed and removed relative to it (:mod:`ragls.store.boundary`), so a link in its place or in
place of a copy makes the copies unusable, never a read, write or removal elsewhere.
"""

from __future__ import annotations

import logging
import re
import secrets
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ragls.store import boundary, files
from ragls.store.boundary import FolderHandle, UnsafeEntry
from ragls.store.files import CorruptFile, MissingFile
from ragls.store.paths import check_workspace_folder, prepare_workspace_folder

log = logging.getLogger(__name__)

FOLDER = "team"
_NAME = re.compile(r"[0-9a-f]{64}")
_TEMPORARY = "tmp-"
_STALE_TEMPORARY_SECONDS = 3600.0  # a temporary file this old was left by a dead process


class PartCopies:
    """The copies of team-index parts kept for the workspace at ``root``, whose cache folder
    is ``workspace`` (:func:`ragls.store.paths.workspace_folder`), in its ``team/``."""

    def __init__(self, workspace: Path, root: Path) -> None:
        self.workspace = workspace
        self.root = root
        self.folder = workspace / FOLDER
        self._warned = False

    def read(self, entry: Mapping[str, Any]) -> bytearray | None:
        """The checked bytes of the part ``entry`` describes, or None when there is no usable
        copy (a copy that fails its check is removed)."""
        name = entry.get("sha256")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            return None
        try:
            if not check_workspace_folder(self.workspace):
                return None
            with FolderHandle(self.folder) as folder:
                try:
                    return files.read_checked(folder.relative(name), dict(entry), dir_fd=folder.fd)
                except MissingFile:
                    return None
                except CorruptFile as error:
                    log.warning(
                        "a local copy of a team-index part is unusable (%s); re-reading", error
                    )
                    folder.unlink(name)
                    return None
        except UnsafeEntry as error:
            self._warn(error)
            return None
        except OSError:
            return None

    def update(
        self, used: Iterable[Mapping[str, Any]], fetched: Mapping[str, bytes | bytearray]
    ) -> None:
        """After a load: write ``fetched`` (checked bytes by SHA-256), mark every copy of
        ``used`` (the loaded manifest's entries) as just used, and remove what the module
        docstring says goes. Problems are logged, never raised."""
        try:
            prepare_workspace_folder(self.workspace, self.root)
            boundary.private_folder(self.folder, create=True)
            with FolderHandle(self.folder) as folder:
                for name, data in fetched.items():
                    if _NAME.fullmatch(name):
                        self._write(folder, name, data)
                keep = {str(entry.get("sha256")) for entry in used}
                now = time.time()
                for name in keep:
                    if _NAME.fullmatch(name):
                        folder.touch(name, now)
                self._prune(folder, keep, now)
        except OSError as error:
            self._warn(error)

    def _warn(self, error: OSError) -> None:
        if not self._warned:
            log.warning("cannot keep copies of the team index in %s: %s", self.folder, error)
            self._warned = True

    def _write(self, folder: FolderHandle, name: str, data: bytes | bytearray) -> None:
        temporary = f"{_TEMPORARY}{name[:16]}-{secrets.token_hex(4)}"
        try:
            with open(folder.create(temporary), "wb") as file:
                file.write(data)
            folder.replace(temporary, name)
        except BaseException:
            folder.unlink(temporary)
            raise

    def _prune(self, folder: FolderHandle, keep: set[str], now: float) -> None:
        kept_bytes, others = 0, []
        for name, found in folder.entries():
            if not stat.S_ISREG(found.st_mode):
                continue  # not a copy this module wrote: left alone
            if name in keep:
                kept_bytes += found.st_size
            elif name.startswith(_TEMPORARY):
                if now - found.st_mtime > _STALE_TEMPORARY_SECONDS:
                    folder.unlink(name)
            else:
                others.append((found.st_mtime, found.st_size, name))
        budget = kept_bytes  # as much again for the most recently used other copies
        for _, size, name in sorted(others, reverse=True):
            if size <= budget:
                budget -= size
            else:
                budget = -1  # keep only a most recent run of copies, never an older one
                folder.unlink(name)

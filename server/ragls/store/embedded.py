"""The embedded generation store: one folder of files per workspace (SPEC §11, docs/storage.md).

Layout of a workspace's folder (see :mod:`ragls.store.paths` for where it is)::

    workspace.json        the workspace root it belongs to
    writer.lock           the one-writer lock, with the owner's pid (ragls.store.locking)
    CURRENT               the pointer: {"generation": "g000042-5f1c", "manifest": SHA-256}
    g000042-5f1c/         a published generation: manifest.json, readers.lock, one file a part
    tmp-g000043-a9b2/     a generation being written (or left by a writer that died)
    team/                 copies of a team index's parts, when the workspace consumes one
                          (ragls.store.copies; this store never reads them)

``save`` writes every part into a ``tmp-`` folder and fsyncs each file, writes the manifest
(format version, codec, configuration fingerprint, generation, creation time, each part's size
and SHA-256), fsyncs the folder, renames it to its final name, fsyncs the workspace folder, and
publishes it by writing ``CURRENT.tmp``, fsyncing it and renaming it over ``CURRENT`` (one
atomic rename), then fsyncs the workspace folder again. Whatever moment the writer dies at,
``CURRENT`` names a complete generation, old or new. Afterwards every other generation that no
reader holds (``readers.lock``) and every ``tmp-`` folder is removed.

``load`` reads the pointer, checks the manifest's checksum, format, codec and configuration,
then each part's size and checksum before decoding it; the first thing that does not fit ends
the load with its reason. A generation removed between reading the pointer and opening it (a
writer published meanwhile) is retried with the new pointer.

The writer checks before each write and each removal that the lock it holds is still on the
``writer.lock`` that is there (:meth:`ragls.store.locking.WriterLock.confirm`): after an
``rm -rf`` of the cache or a replaced lock file it takes the lock again (re-creating the folder)
if no other process took it, and otherwise stops writing, with the reason in status; so two
processes never publish or prune in one folder, each believing it is the writer.

Nothing is read or written before the cache root and the workspace's folder are checked to be
private to the user, and every entry is opened without following links or blocking
(:mod:`ragls.store.boundary`): a link, a FIFO or a foreign folder makes the cache unusable
(the index stays in memory, status says why), never a write outside it or a hang.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from ragls.errors import StoreError
from ragls.store import boundary, codec, files
from ragls.store.boundary import UnsafeEntry
from ragls.store.files import CorruptFile
from ragls.store.interface import DOCUMENT_TEXTS, LoadResult, Snapshot, StoreInfo
from ragls.store.locking import WriterLock, reading, unused
from ragls.store.manifest import PART_NAME, Part, checked, decode_parts, mismatch, opened
from ragls.store.paths import check_workspace_folder, prepare_workspace_folder, workspace_folder
from ragls.store.stored_texts import StoredTexts

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
POINTER = "CURRENT"
MANIFEST = "manifest.json"
READERS = "readers.lock"
LOCK = "writer.lock"
LOAD_ATTEMPTS = 3
POINTER_LIMIT = 4096  # bytes: {"generation": ..., "manifest": ...}
MANIFEST_LIMIT = 16 << 20  # bytes: a few hundred per part


def _part_file(name: str) -> str:
    if not PART_NAME.fullmatch(name) or name in (MANIFEST, READERS):
        raise ValueError(f"part name {name!r} is not a plain lower-case file name")
    return name


def _texts(generation: boundary.FolderHandle, part: Part) -> object:
    """The documents' texts part: a :class:`StoredTexts` that reads them from the part file
    (docs/storage.md), or, for a part that is not one string table, the decoded value."""
    if part.kind != "object":
        raise CorruptFile(f"{part.name} is not an object part")
    path = generation.relative(_part_file(part.name))
    data, fd = files.read_checked_open(path, part.entry(), dir_fd=generation.fd)
    try:
        texts = StoredTexts.of(fd, data)
    except codec.DecodeError as error:
        os.close(fd)
        raise CorruptFile(f"{part.name} cannot be decoded: {error}") from None
    except BaseException:
        os.close(fd)
        raise
    if texts is None:
        os.close(fd)
        return files.decode_object(data, part.name)
    return texts


class EmbeddedStore:
    """The generations of the workspace at ``root``, under ``cache_dir`` (None: the default
    cache root). Nothing touches the disk until the first call that needs it."""

    def __init__(self, root: Path, cache_dir: str | os.PathLike[str] | None = None) -> None:
        self.root = root.resolve()
        self.folder = workspace_folder(self.root, cache_dir)
        self._lock = WriterLock(self.folder / LOCK)
        self._guard = threading.Lock()  # the save thread and status both confirm the lock
        self._lost = ""  # why this process stopped writing, after its lock file was removed
        self._prune_problem = ""  # what the last clean-up could not remove, and why

    @property
    def location(self) -> str:
        return str(self.folder)

    @property
    def shared(self) -> bool:
        return False  # one folder per workspace path

    # -- the writer lock -----------------------------------------------------------------------

    def acquire(self) -> bool:
        if self._lock.held:
            return self._still_writer()
        try:
            prepare_workspace_folder(self.folder, self.root)
            taken = self._lock.try_acquire()
        except OSError as error:
            raise StoreError(f"cannot use the cache folder {self.folder}: {error}") from error
        if taken:
            self._lost = ""
            try:
                self._probe()
            except OSError as error:
                self._lock.release()  # a writer that cannot write is none
                raise StoreError(
                    f"the cache folder {self.folder} cannot be written: {error.strerror or error}"
                ) from error
        return taken

    def _probe(self) -> None:
        """Create and remove a folder as a save would (its ``tmp-`` name is collected if this
        process dies in between): a folder that cannot be written is found before the index
        is built, and said then, not after the answer the save follows."""
        probe = self.folder / f"tmp-probe-{secrets.token_hex(4)}"
        probe.mkdir(mode=boundary.PRIVATE_FOLDER_MODE)
        probe.rmdir()

    def release(self) -> None:
        with self._guard:
            self._lock.release()

    def _still_writer(self) -> bool:
        """Whether this process still holds the writer lock. A lock file removed or replaced
        under it (``rm -rf`` of the cache) is locked again if nobody else has locked the new
        one, the folder re-created if it is gone; otherwise this process stops being the
        writer and :attr:`_lost` says why (status shows it)."""
        with self._guard:
            if not self._lock.held:
                return False
            try:
                if not self._lock.lost():
                    return True
                prepare_workspace_folder(self.folder, self.root)
                retaken = self._lock.confirm()
                problem = ""
            except OSError as error:
                self._lock.release()
                retaken, problem = False, f": {error}"
            if retaken:
                log.warning(
                    "%s: %s was removed or replaced while this process held it; it took the "
                    "lock again, as no other process had",
                    self.folder,
                    LOCK,
                )
                return True
            owner = self._lock.owner_pid()
            by = f"process {owner}" if owner else "another process"
            taken = f"{by} took the lock" if not problem else f"it cannot be taken again{problem}"
            self._lost = (
                f"{LOCK} was removed or replaced while this process wrote the index, and "
                f"{taken}; this one keeps its changes in memory"
            )
            log.warning("%s: %s", self.folder, self._lost)
            return False

    def _not_writer(self) -> StoreError:
        if self._lost:
            return StoreError(f"{self.folder}: {self._lost}")
        owner = self._lock.owner_pid()
        by = f"process {owner}" if owner else "another process"
        return StoreError(f"the index of {self.root} is written by {by}, not this one")

    # -- reading -------------------------------------------------------------------------------

    def _pointer(self) -> tuple[str, str] | None:
        return read_pointer(self.folder)

    def load(self, config_key: str) -> LoadResult:
        try:
            if not check_workspace_folder(self.folder):
                return LoadResult(None, "no generation is stored yet")
        except UnsafeEntry as error:
            return LoadResult(None, f"the cache folder cannot be used: {error}")
        except OSError as error:
            return LoadResult(None, f"the cache folder cannot be read: {error}")
        for _ in range(LOAD_ATTEMPTS):
            try:
                pointer = self._pointer()
                if pointer is None:
                    return LoadResult(None, "no generation is stored yet")
                return self._load(*pointer, config_key)
            except _Missing as missing:
                try:
                    if self._pointer() != pointer:
                        continue  # removed after a newer one was published: read it again
                except (OSError, CorruptFile, ValueError, KeyError, TypeError):
                    continue  # the next attempt says what is wrong with the pointer
                return LoadResult(None, f"the stored generation is unusable: {missing}", True)
            except (
                CorruptFile,
                UnsafeEntry,
                ValueError,
                KeyError,
                TypeError,
                RecursionError,
            ) as error:
                return LoadResult(None, f"the stored generation is unusable: {error}", True)
            except OSError as error:
                return LoadResult(None, f"the cache folder cannot be read: {error}", warning=True)
        return LoadResult(None, "the stored generation kept changing while it was read")

    def _load(self, name: str, manifest_sum: str, config_key: str) -> LoadResult:
        with contextlib.ExitStack() as stack:
            try:
                generation = stack.enter_context(boundary.FolderHandle(self.folder / name))
            except FileNotFoundError:
                raise _Missing(f"its folder {name}, which {POINTER} names, is missing") from None
            try:
                stack.enter_context(reading(generation.relative(READERS), dir_fd=generation.fd))
                data = generation.read(MANIFEST, MANIFEST_LIMIT)
            except FileNotFoundError as error:
                what = "its manifest " if error.filename == MANIFEST else ""
                raise _Missing(f"{what}{name}/{error.filename} is missing") from None
            if files.sha256_of(data) != manifest_sum:
                raise CorruptFile("the manifest fails its checksum")
            manifest = opened(json.loads(data))
            reason = mismatch(manifest, FORMAT_VERSION, manifest.get("config"), config_key)
            if reason:
                return LoadResult(None, f"the stored generation is unusable: {reason}", True)
            found = checked(manifest)
            parts = dict(found.parts)
            texts = parts.pop(DOCUMENT_TEXTS, None)
            arrays, objects = decode_parts(
                parts,
                lambda part, entry: files.read_checked(
                    generation.relative(_part_file(part)), entry, dir_fd=generation.fd
                ),
            )
            if texts is not None:
                objects[DOCUMENT_TEXTS] = _texts(generation, texts)
        snapshot = Snapshot(found.generation, config_key, arrays, objects, found.created)
        return LoadResult(snapshot)

    # -- writing -------------------------------------------------------------------------------

    def save(self, snapshot: Snapshot) -> None:
        if not self._still_writer():
            raise self._not_writer()
        name = f"g{snapshot.generation:06d}-{secrets.token_hex(3)}"
        temporary = self.folder / f"tmp-{name}"
        try:
            manifest = self._write(temporary, snapshot)
            os.rename(temporary, self.folder / name)
            files.sync_directory(self.folder)
            if not self._still_writer():  # lost while writing: publish nothing, remove ours
                _remove(self.folder / name)
                raise self._not_writer()
            pointer = json.dumps({"generation": name, "manifest": files.sha256_of(manifest)})
            staged = self.folder / f"{POINTER}.tmp"
            staged.unlink(missing_ok=True)
            files.write_durably(staged, pointer.encode())
            os.replace(staged, self.folder / POINTER)
            files.sync_directory(self.folder)
        except OSError as error:
            _remove(temporary)
            raise StoreError(f"writing the index to {self.folder} failed: {error}") from error
        except BaseException:
            _remove(temporary)
            raise
        self._collect(keep=name)

    def _write(self, folder: Path, snapshot: Snapshot) -> bytes:
        """Write the generation's files into ``folder``; the manifest's bytes."""
        folder.mkdir(mode=boundary.PRIVATE_FOLDER_MODE)
        parts: dict[str, dict[str, Any]] = {}
        for part, array in snapshot.arrays.items():
            data, entry = files.encode_array(array)
            files.write_durably(folder / _part_file(part), data)
            parts[part] = entry
        for part, value in snapshot.objects.items():
            if part in parts:
                raise ValueError(f"part {part!r} is both an array and an object")
            encoded, entry = files.encode_object(value)
            files.write_durably(folder / _part_file(part), encoded)
            parts[part] = entry
        files.write_durably(folder / READERS, b"")
        manifest = {
            "format": FORMAT_VERSION,
            "codec": files.CODEC,
            "config": snapshot.config_key,
            "generation": snapshot.generation,
            "created": time.time(),
            "root": str(self.root),
            "parts": parts,
        }
        encoded = json.dumps(manifest, indent=1).encode()
        files.write_durably(folder / MANIFEST, encoded)
        files.sync_directory(folder)
        return encoded

    def _collect(self, keep: str) -> None:
        """Remove every generation but ``keep`` that no reader holds, and every tmp- folder
        (only the writer writes, so a tmp- folder is one a dead writer left). The lock is
        confirmed before each removal: a process that is no longer the writer removes nothing.
        One that cannot be removed (an unreadable folder) is left, and said in a warning and in
        status (``StoreInfo.problem``): the generation was published all the same."""
        problems = []
        try:
            entries = sorted(self.folder.iterdir())
        except OSError as error:
            entries, problems = [], [str(error)]
        for entry in entries:
            if entry.name == keep or not boundary.is_folder(entry):
                continue  # a link is not ours to follow, nor to remove
            if not entry.name.startswith(("g", "tmp-")):
                continue
            try:
                if entry.name.startswith("g") and not unused(entry / READERS):
                    continue  # a reader is loading it; the next save removes it
                if not self._still_writer():
                    return
                boundary.remove_folder(entry)
            except FileNotFoundError:
                continue
            except OSError as error:
                problems.append(str(error))
        problem = ""
        if problems:
            problem = f"old generations could not be removed from {self.folder}: " + "; ".join(
                problems
            )
            if problem != self._prune_problem:
                log.warning("%s (the new generation is published all the same)", problem)
        self._prune_problem = problem

    def discard(self) -> None:
        if not self._still_writer():
            return
        try:
            (self.folder / POINTER).unlink(missing_ok=True)
            files.sync_directory(self.folder)
        except OSError as error:
            log.warning("could not remove the index pointer in %s: %s", self.folder, error)
        self._collect(keep="")

    # -- status --------------------------------------------------------------------------------

    def info(self) -> StoreInfo:
        writer = self._still_writer()
        generation, written = published(self.folder)
        return StoreInfo(
            location=str(self.folder),
            bytes_on_disk=folder_size(self.folder),
            generation=generation,
            written_at=written,
            writer=writer,
            owner_pid=self._lock.owner_pid(),
            note="" if writer else self._lost,
            problem=self._prune_problem,
        )


class _Missing(FileNotFoundError):
    """The generation the pointer names lacks its folder or a file opened before its manifest
    is read (parts missing are :class:`~ragls.store.files.MissingFile`)."""


def read_pointer(folder: Path) -> tuple[str, str] | None:
    """(generation folder name, manifest SHA-256) that ``CURRENT`` names; None if there is no
    pointer, CorruptFile (or ValueError, KeyError, TypeError) if it is not one."""
    try:
        text = boundary.read_file(folder / POINTER, POINTER_LIMIT)
    except FileNotFoundError:
        return None
    pointer = json.loads(text)
    name, manifest = pointer["generation"], pointer["manifest"]
    if not isinstance(name, str) or "/" in name or not name.startswith("g"):
        raise CorruptFile(f"the pointer names {name!r}")
    return name, manifest


def published(folder: Path) -> tuple[int | None, float | None]:
    """(generation number, time written) of what ``folder`` publishes; Nones if nothing
    readable is published (what status and ``ragls cache list`` show)."""
    try:
        pointer = read_pointer(folder)
        if pointer is None:
            return None, None
        return int(pointer[0][1:].split("-")[0]), (folder / POINTER).stat().st_mtime
    except (OSError, ValueError, KeyError, TypeError, CorruptFile):
        return None, None


def folder_size(folder: Path) -> int:
    """Bytes of every file below ``folder`` (0 if it does not exist or is a link)."""
    total = 0
    if not boundary.is_folder(folder):
        return 0
    for directory, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
    return total


def _remove(folder: Path) -> None:
    """Remove a generation's folder if it is one (a link in its place is left alone)."""
    with contextlib.suppress(OSError):
        boundary.remove_folder(folder)

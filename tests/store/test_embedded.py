"""The embedded store: whole generations published atomically, anything damaged refused."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pytest

from ragls.errors import StoreError
from ragls.store import files
from ragls.store.embedded import MANIFEST, POINTER, READERS, EmbeddedStore
from ragls.store.interface import Snapshot
from ragls.store.locking import reading


def snapshot(generation: int, key: str = "key") -> Snapshot:
    return Snapshot(
        generation,
        key,
        {"a.slots": np.arange(10, dtype=np.int32) * generation, "a.values": np.ones(3)},
        {"documents.text": ["one", "two", f"gen {generation}"], "service": {"root": None}},
    )


def current(store: EmbeddedStore) -> Path:
    return store.folder / json.loads((store.folder / POINTER).read_text())["generation"]


def test_a_saved_generation_loads_back_whole(store: EmbeddedStore) -> None:
    store.save(snapshot(3))
    loaded = store.load("key").snapshot
    assert loaded is not None and loaded.generation == 3 and loaded.created > 0
    assert loaded.objects == snapshot(3).objects
    assert set(loaded.arrays) == {"a.slots", "a.values"}
    assert np.array_equal(loaded.arrays["a.slots"], snapshot(3).arrays["a.slots"])
    assert loaded.arrays["a.slots"].dtype == np.int32
    loaded.arrays["a.values"][0] = 5.0  # restored arrays are writable (indexes change them)


def test_nothing_stored_is_a_plain_miss(store: EmbeddedStore) -> None:
    result = store.load("key")
    assert result.snapshot is None and not result.discarded
    assert result.reason == "no generation is stored yet"


def test_only_the_published_generation_is_kept(store: EmbeddedStore) -> None:
    for generation in (1, 2, 3):
        store.save(snapshot(generation))
    (store.folder / "tmp-g000009-dead00").mkdir()  # what a writer killed mid-save leaves
    store.save(snapshot(4))
    generations = sorted(p.name for p in store.folder.iterdir() if p.is_dir())
    assert generations == [current(store).name]
    assert store.info().generation == 4


def test_a_generation_being_read_is_not_removed(store: EmbeddedStore) -> None:
    store.save(snapshot(1))
    first = current(store)
    with reading(first / READERS):
        store.save(snapshot(2))
        assert first.exists()
    store.save(snapshot(3))
    assert not first.exists()


def damage_truncate(folder: Path) -> None:
    part = folder / "documents.text"
    part.write_bytes(part.read_bytes()[:-3])


def damage_flip(folder: Path) -> None:
    part = folder / "a.slots"
    data = bytearray(part.read_bytes())
    data[5] ^= 0x40
    part.write_bytes(bytes(data))


def damage_delete(folder: Path) -> None:
    (folder / "a.values").unlink()


def damage_manifest(folder: Path) -> None:
    data = bytearray((folder / MANIFEST).read_bytes())
    data[20] ^= 0x01
    (folder / MANIFEST).write_bytes(bytes(data))


def rewrite_manifest(folder: Path, **changes: object) -> None:
    """A consistent manifest (its checksum in the pointer updated) with other values."""
    manifest = json.loads((folder / MANIFEST).read_text()) | changes
    data = json.dumps(manifest).encode()
    (folder / MANIFEST).write_bytes(data)
    pointer_file = folder.parent / POINTER
    pointer = json.loads(pointer_file.read_text())
    pointer_file.write_text(json.dumps(pointer | {"manifest": files.sha256_of(data)}))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (damage_truncate, "documents.text has"),
        (damage_flip, "a.slots fails its checksum"),
        (damage_delete, "a.values is missing"),
        (damage_manifest, "the manifest fails its checksum"),
        (lambda folder: rewrite_manifest(folder, format=99), "it has format 99"),
        (lambda folder: rewrite_manifest(folder, codec="marshal9-py9.9"), "written by marshal9"),
        (lambda folder: rewrite_manifest(folder, config="other"), "configuration changed"),
        (lambda folder: (folder.parent / POINTER).write_text("{"), "unusable"),
    ],
    ids=["truncated", "bit-flip", "deleted", "manifest", "version", "codec", "config", "pointer"],
)
def test_a_damaged_generation_is_refused_with_its_reason(
    store: EmbeddedStore, damage: object, reason: str
) -> None:
    store.save(snapshot(1))
    damage(current(store))  # type: ignore[operator]
    result = store.load("key")
    assert result.snapshot is None and result.discarded
    assert reason in result.reason


def test_a_damaged_generation_can_be_discarded_and_replaced(store: EmbeddedStore) -> None:
    store.save(snapshot(1))
    damage_flip(current(store))
    store.discard()
    assert store.load("key").reason == "no generation is stored yet"
    store.save(snapshot(2))
    loaded = store.load("key").snapshot
    assert loaded is not None and loaded.generation == 2


def test_a_full_disk_keeps_the_previous_generation(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(snapshot(1))
    real = files.write_durably

    def full(path: Path, data: bytes | memoryview) -> None:
        if path.name == "documents.text":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)

    monkeypatch.setattr(files, "write_durably", full)
    with pytest.raises(StoreError, match="No space left on device"):
        store.save(snapshot(2))
    loaded = store.load("key").snapshot
    assert loaded is not None and loaded.generation == 1
    assert not [p for p in store.folder.iterdir() if p.name.startswith("tmp-")]


def test_an_unusable_cache_folder_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder should be")
    store = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    with pytest.raises(StoreError, match="cannot use the cache folder"):
        store.acquire()
    assert store.load("key").snapshot is None


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    first = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    second = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert first.acquire()
    assert not second.acquire()
    assert second.info().owner_pid == os.getpid() and not second.info().writer
    with pytest.raises(StoreError, match=f"written by process {os.getpid()}"):
        second.save(snapshot(1))
    first.save(snapshot(1))
    assert second.load("key").snapshot is not None  # readers read what the writer published
    first.release()
    assert second.acquire()


def test_part_names_are_plain_file_names(store: EmbeddedStore) -> None:
    bad = Snapshot(1, "key", {}, {"../escape": 1})
    with pytest.raises(ValueError, match="plain lower-case file name"):
        store.save(bad)
    assert store.load("key").reason == "no generation is stored yet"
    assert not [p for p in store.folder.iterdir() if p.is_dir()]


def test_a_writer_whose_lock_file_was_removed_and_taken_writes_and_removes_nothing(
    tmp_path: Path,
) -> None:
    first = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert first.acquire()
    first.save(snapshot(1))
    (first.folder / "writer.lock").unlink()  # rm -rf of the cache, in small
    second = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert second.acquire()
    second.save(snapshot(2))
    kept = sorted(os.listdir(second.folder))
    with pytest.raises(StoreError, match=r"writer\.lock was removed or replaced"):
        first.save(snapshot(3))
    assert sorted(os.listdir(second.folder)) == kept  # nothing of the writer's removed
    assert not first.acquire()
    info = first.info()
    assert not info.writer and info.owner_pid == os.getpid()
    assert "writer.lock was removed or replaced" in info.note


def test_a_writer_takes_its_removed_lock_file_again_when_nobody_else_did(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert store.acquire()
    store.save(snapshot(1))
    (store.folder / "writer.lock").unlink()
    store.save(snapshot(2))
    assert store.info().writer and (store.folder / "writer.lock").is_file()
    other = EmbeddedStore(tmp_path / "workspace", tmp_path / "cache")
    assert not other.acquire()  # the new file is locked: no second writer

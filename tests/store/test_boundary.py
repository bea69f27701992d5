"""The cache folder as a boundary (ragls.store.boundary): what lies in it can make ragls refuse
its cache, never write, read or delete outside it, nor hang. Through the CLI as a process, and
a consumer's part copies through their own API."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ragls.store.copies import PartCopies
from tests.ingest.trees import make_tree

SECONDS = 60  # a run that hangs on a FIFO would never end; the tests give it this long
NOBODY = 65534


def ragls(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragls", *args],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env={**os.environ, "RAGLS_CACHE_DIR": str(cache)},
    )


def project(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "project",
        {"pay.py": "def charge_card(amount):\n    return gateway.charge(amount)\n"},
    )


def indexed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, cache root, the project's folder in it) after one indexing run."""
    root, cache = project(tmp_path), tmp_path / "cache"
    assert ragls("index", str(root), cache=cache).returncode == 0
    (folder,) = [entry for entry in cache.iterdir() if entry.name.startswith("project-")]
    return root, cache, folder


def generation_of(folder: Path) -> Path:
    return folder / json.loads((folder / "CURRENT").read_text())["generation"]


def found_files(result: subprocess.CompletedProcess[str]) -> set[str]:
    assert result.returncode == 0, result.stderr
    return {hit["metadata"]["file"] for hit in json.loads(result.stdout)["results"]}


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_writer_lock_that_is_a_link_is_never_followed(tmp_path: Path) -> None:
    root, cache, folder = indexed(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (folder / "writer.lock").unlink()
    (folder / "writer.lock").symlink_to(victim)
    result = ragls("index", str(root), cache=cache)
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "precious\n"
    assert "writer.lock is a symbolic link" in result.stderr
    assert found_files(ragls("search", str(root), "charge card", "--json", cache=cache)) == {
        "pay.py"
    }


@pytest.mark.parametrize(
    "entry", ["CURRENT", "{g}/readers.lock", "{g}/manifest.json", "{g}/code.delta_slots"]
)
def test_a_fifo_in_the_cache_never_hangs_a_search(tmp_path: Path, entry: str) -> None:
    root, cache, folder = indexed(tmp_path)
    path = folder / entry.format(g=generation_of(folder).name)
    path.unlink()
    os.mkfifo(path)
    result = ragls("search", str(root), "charge card", "--json", cache=cache)
    assert found_files(result) == {"pay.py"}
    again = ragls("search", str(root), "charge card", "--json", cache=cache)
    assert found_files(again) == {"pay.py"}  # the writer replaced what it could not use


def test_a_fifo_in_the_cache_never_hangs_cache_list(tmp_path: Path) -> None:
    _, cache, folder = indexed(tmp_path)
    (folder / "workspace.json").unlink()
    os.mkfifo(folder / "workspace.json")
    result = ragls("cache", "list", "--json", cache=cache)
    assert result.returncode == 0, result.stderr
    assert [entry["root"] for entry in json.loads(result.stdout)] == [None]


def test_cache_clean_never_follows_a_linked_entry(tmp_path: Path) -> None:
    _, cache, folder = indexed(tmp_path)
    victim = make_tree(
        tmp_path / "victim",
        {"workspace.json": json.dumps({"root": str(tmp_path / "gone")}), "keep.txt": "mine"},
    )
    (cache / "gone-0123456789abcdef").symlink_to(victim, target_is_directory=True)
    listed = json.loads(ragls("cache", "list", "--json", cache=cache).stdout)
    assert [entry["folder"] for entry in listed] == [str(folder)]
    assert ragls("cache", "clean", cache=cache).returncode == 0
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt", "workspace.json"]
    assert (cache / "gone-0123456789abcdef").is_symlink() and folder.is_dir()


def test_pruning_copies_never_deletes_through_a_team_link(tmp_path: Path) -> None:
    workspace, victim = tmp_path / "cache" / "project-0123456789abcdef", tmp_path / "victim"
    kept = {"a" * 64: b"not a copy", "notes.txt": b"precious"}
    make_tree(victim, {name: data.decode() for name, data in kept.items()})
    workspace.mkdir(parents=True, mode=0o700)
    (workspace / "team").symlink_to(victim, target_is_directory=True)
    copies = PartCopies(workspace, project(tmp_path))
    assert copies.read({"sha256": "a" * 64, "bytes": 3}) is None
    copies.update([], {"b" * 64: b"new"})
    assert {p.name: p.read_bytes() for p in victim.iterdir()} == kept


def test_folders_ragls_creates_are_private(tmp_path: Path) -> None:
    cache = tmp_path / "home" / ".cache" / "ragls"
    assert ragls("index", str(project(tmp_path)), cache=cache).returncode == 0
    (folder,) = cache.iterdir()
    for made in (tmp_path / "home", tmp_path / "home" / ".cache", cache, folder):
        assert mode_of(made) == 0o700, made


def test_a_cache_root_others_may_read_is_made_private(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o755)
    os.chmod(cache, 0o755)
    assert ragls("index", str(project(tmp_path)), cache=cache).returncode == 0
    assert mode_of(cache) == 0o700


def test_a_cache_root_others_may_write_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, 0o1777)
    root = project(tmp_path)
    result = ragls("index", str(root), cache=cache)
    assert result.returncode == 0, result.stderr
    assert "may be written by other users (mode 1777)" in result.stderr
    assert list(cache.iterdir()) == [] and mode_of(cache) == 0o1777
    assert found_files(ragls("search", str(root), "charge", "--json", cache=cache)) == {"pay.py"}


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_workspace_folder_of_another_user_is_never_written(tmp_path: Path) -> None:
    root, cache, folder = indexed(tmp_path)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    os.chown(folder, NOBODY, NOBODY)
    (root / "refund.py").write_text("def refund_card(amount):\n    return amount\n")
    result = ragls("index", str(root), cache=cache)
    assert result.returncode == 0, result.stderr
    assert f"belongs to user {NOBODY}, not to this one (0)" in result.stderr
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before

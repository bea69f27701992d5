"""A stored index that cannot be written, read or cleaned is never silent: the CLI names the
cause on stderr and in ``--json`` ``warnings`` (SPEC §11). Through the CLI as a process; when
the tests run as root, the process runs without the capabilities that let root ignore file
modes (``setpriv``), so a folder's mode means what it means for any user."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ingest.trees import make_tree

pytestmark = pytest.mark.slow
AS_A_USER = (
    ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
)
needs_modes = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="as root, file modes are only enforced without CAP_DAC_OVERRIDE (setpriv)",
)


def ragls(cache: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AS_A_USER, sys.executable, "-m", "ragls", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"RAGLS_CACHE_DIR": str(cache)},
        check=False,
    )


def indexed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project indexed once: (project, cache root, its workspace's cache folder)."""
    root = make_tree(tmp_path / "proj", {"pay.py": "def charge(card):\n    return card\n"})
    cache = tmp_path / "cache"
    done = ragls(cache, "index", str(root))
    assert done.returncode == 0, done.stderr
    (folder,) = cache.iterdir()
    return root, cache, folder


def row(stderr: str, key: str, value: str) -> bool:
    """Whether the index summary has the row ``key`` starting with ``value``."""
    return re.search(rf"^{key} +{re.escape(value)}", stderr, re.MULTILINE) is not None


def search_json(cache: Path, root: Path, query: str) -> tuple[list[str], str]:
    done = ragls(cache, "search", str(root), query, "--json")
    assert done.returncode == 0, done.stderr
    warnings: list[str] = json.loads(done.stdout)["warnings"]
    return warnings, done.stderr


@needs_modes
def test_a_cache_folder_that_cannot_be_written_is_a_warning_naming_the_cause(
    tmp_path: Path,
) -> None:
    root, cache, folder = indexed(tmp_path)
    (root / "pay.py").write_text("def refund(card):\n    return card\n")
    folder.chmod(0o500)
    try:
        index = ragls(cache, "index", str(root))
        warnings, stderr = search_json(cache, root, "refund")
    finally:
        folder.chmod(0o700)
    assert index.returncode == 0, index.stderr
    cause = f"the cache folder {folder} cannot be written: Permission denied"
    assert row(index.stderr, "cache", "failed:"), index.stderr
    assert row(index.stderr, "warning", f"the index is not saved: {cause}"), index.stderr
    assert any(cause in warning for warning in warnings), warnings
    assert f"ragls: warning: the index is not saved: {cause}" in stderr


def test_a_missing_manifest_is_named_as_the_reason(tmp_path: Path) -> None:
    root, cache, folder = indexed(tmp_path)
    (generation,) = folder.glob("g*")
    (generation / "manifest.json").unlink()
    warnings, stderr = search_json(cache, root, "charge")
    reason = f"its manifest {generation.name}/manifest.json is missing"
    assert any(reason in warning for warning in warnings), warnings
    assert "kept changing" not in stderr + " ".join(warnings)


def test_a_missing_generation_folder_is_named_as_the_reason(tmp_path: Path) -> None:
    root, cache, folder = indexed(tmp_path)
    (generation,) = folder.glob("g*")
    shutil.rmtree(generation)
    index = ragls(cache, "index", str(root))
    assert index.returncode == 0, index.stderr
    assert f"its folder {generation.name}, which CURRENT names, is missing" in index.stderr
    assert "kept changing" not in index.stderr
    assert row(index.stderr, "cache", "saved:"), index.stderr  # rebuilt and stored again


@needs_modes
def test_an_old_generation_that_cannot_be_removed_does_not_fail_the_save(
    tmp_path: Path,
) -> None:
    root, cache, folder = indexed(tmp_path)
    old = folder / "g000000-0a0a0a"
    old.mkdir()
    (old / "readers.lock").touch()
    old.chmod(0o000)
    (root / "pay.py").write_text("def refund(card):\n    return card\n")
    try:
        index = ragls(cache, "index", str(root))
    finally:
        old.chmod(0o700)
    assert index.returncode == 0, index.stderr
    assert "Traceback" not in index.stderr and "failed" not in index.stderr
    assert row(index.stderr, "cache", "saved:"), index.stderr
    assert row(index.stderr, "warning", f"old generations could not be removed from {folder}:")
    assert "Permission denied" in index.stderr
    current = json.loads((folder / "CURRENT").read_text())["generation"]
    assert sorted(entry.name for entry in folder.glob("g*")) == [old.name, current]

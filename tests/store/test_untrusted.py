"""A stored generation is data to check, not to trust (docs/security.md, the trust model):
whoever wrote the cache folder can make the stored index unusable, never make the CLI crash or
take gigabytes; it then indexes the files and says why. Through the CLI as a process, its
address space limited so that an allocation a few bytes ask for fails instead of swapping."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ingest.trees import make_tree

MEMORY = 2 << 30  # address space the CLI gets: ample for it, far below what a bomb asks


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def ragls(*args: str, cache: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragls", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"RAGLS_CACHE_DIR": str(cache)} | environment,
        preexec_fn=limited,
    )


def indexed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, cache root, the generation folder) after one indexing run."""
    root = make_tree(
        tmp_path / "project",
        {"pay.py": "def charge_card(amount):\n    return gateway.charge(amount)\n"},
    )
    cache = tmp_path / "cache"
    assert ragls("index", str(root), cache=cache).returncode == 0
    (folder,) = cache.iterdir()
    name = json.loads((folder / "CURRENT").read_text())["generation"]
    return root, cache, folder / name


def republish(generation: Path, manifest: object) -> None:
    """Write ``manifest`` as the generation's and point CURRENT at it, checksums and all: what
    someone who can write the cache folder can do."""
    data = json.dumps(manifest).encode()
    (generation / "manifest.json").write_bytes(data)
    pointer = {"generation": generation.name, "manifest": hashlib.sha256(data).hexdigest()}
    (generation.parent / "CURRENT").write_text(json.dumps(pointer))


def planted(generation: Path, part: str, data: bytes) -> dict[str, Any]:
    """The manifest with ``part`` replaced by ``data`` (file written, size and SHA-256 set)."""
    (generation / part).write_bytes(data)
    manifest: dict[str, Any] = json.loads((generation / "manifest.json").read_text())
    manifest["parts"][part] |= {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return manifest


def searched(root: Path, cache: Path, **environment: str) -> set[str]:
    result = ragls("search", str(root), "charge card", "--json", cache=cache, **environment)
    assert result.returncode == 0, result.stderr
    return {hit["metadata"]["file"] for hit in json.loads(result.stdout)["results"]}


Damage = Callable[[Path], object]
DAMAGES: dict[str, tuple[Damage, str]] = {
    "a five-byte header asking for a tuple of 2**31 items": (
        lambda g: planted(g, "documents.text", b"(\xff\xff\xff\x7f"),
        "documents.text cannot be decoded",
    ),
    "a manifest that is a JSON string": (lambda g: "manifest", "the manifest is a JSON str"),
    "a manifest whose parts are a list": (
        lambda g: json.loads((g / "manifest.json").read_text()) | {"parts": []},
        "the manifest's parts are a JSON list",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_hostile_cache_folder_costs_a_rebuild_never_the_command(
    tmp_path: Path, damage: str
) -> None:
    root, cache, generation = indexed(tmp_path)
    change, reason = DAMAGES[damage]
    republish(generation, change(generation))
    result = ragls("index", str(root), cache=cache)
    assert result.returncode == 0, result.stderr
    assert reason in result.stderr
    assert searched(root, cache) == {"pay.py"}


def test_a_declared_size_is_checked_before_the_part_is_read(tmp_path: Path) -> None:
    root, cache, generation = indexed(tmp_path)
    manifest = json.loads((generation / "manifest.json").read_text())
    manifest["parts"]["documents.text"]["bytes"] = 1 << 40
    republish(generation, manifest)
    result = ragls("index", str(root), cache=cache)
    assert result.returncode == 0, result.stderr
    assert f"the manifest says {1 << 40}" in result.stderr

"""ragls's ignore semantics against git itself, over many generated trees (SPEC §8)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from ragls.ingest.admission import has_control_character
from tests.ingest.gitoracle import git_visible_files, ragls_visible_files, random_tree

SEEDS = range(600)


def oracle_pair(tmp_path: Path, seed: int, *, with_tnsignore: bool) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    ours = tmp_path / f"ours{seed}"
    ours.mkdir()
    git_view = random_tree(rng, ours, with_tnsignore=with_tnsignore)
    theirs = tmp_path / f"git{seed}"
    shutil.copytree(ours, theirs)
    for path in list(theirs.rglob(".tnsignore")):
        path.unlink()
    for directory, content in git_view.items():
        (theirs / directory / ".gitignore").write_bytes(content.encode())
    # ragls refuses paths with control characters on purpose (SkipReason.UNSAFE_NAME); git's
    # verdict on the others is the oracle.
    expected = [p for p in git_visible_files(theirs) if not has_control_character(p)]
    actual = [p for p in ragls_visible_files(ours) if not p.endswith(".tnsignore")]
    return expected, actual


@pytest.mark.parametrize("seed", SEEDS)
def test_gitignore_agrees_with_git(tmp_path: Path, seed: int) -> None:
    expected, actual = oracle_pair(tmp_path, seed, with_tnsignore=False)
    assert actual == expected


@pytest.mark.parametrize("seed", range(1000, 1100))
def test_tnsignore_acts_as_appended_lines(tmp_path: Path, seed: int) -> None:
    expected, actual = oracle_pair(tmp_path, seed, with_tnsignore=True)
    assert actual == expected

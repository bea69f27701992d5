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


def test_the_work_trees_exclude_files_count_as_git_counts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``.git/info/exclude`` and the global ignore file (``$XDG_CONFIG_HOME/git/ignore``) hide
    files as ``git ls-files --exclude-standard`` does, below every ``.gitignore``."""
    import subprocess

    from tests.ingest.gitoracle import GIT_ENV

    root = tmp_path / "repo"
    config = tmp_path / "config"
    files = {
        "a.py": "x\n",
        "private/notes.txt": "salary\n",
        "build.log": "log\n",
        "keep.log": "kept by .gitignore\n",
        "draft.scratch": "mine\n",
        "src/deep.scratch": "mine too\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".gitignore").write_text("!keep.log\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=GIT_ENV)
    (root / ".git" / "info" / "exclude").write_text("private/\n*.log\n")
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("*.scratch\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    git = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**GIT_ENV, "XDG_CONFIG_HOME": str(config), "GIT_CONFIG_GLOBAL": str(tmp_path / "no")},
    ).stdout.split()
    assert sorted(git) == [".gitignore", "a.py", "keep.log"]
    assert ragls_visible_files(root) == ["a.py", "keep.log"]  # ignore files are not indexed

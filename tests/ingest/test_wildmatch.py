"""Ignore patterns with many stars: the same answers as git's plain translation, in linear time."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ragls.ingest.ignore.wildmatch import _tokens, compile_wildmatch
from tests.ingest.gitoracle import ragls_visible_files


def plain(pattern: bytes) -> re.Pattern[bytes]:
    """The translation with a greedy ``[^/]*`` for every star (backtracking, exponential on
    hostile input): what the atomic form must agree with."""
    source = b"".join(text for _, text in _tokens(pattern))
    return re.compile(b"(?s:" + source + b")\\Z")


@pytest.mark.parametrize("seed", range(8))
def test_atomic_stars_match_what_the_plain_translation_matches(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        pieces = [b"*", b"*", b"**", b"?", b"a", b"b", b"/", b"[ab]", b"[!a]", b"x"]
        pattern = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        reference = plain(pattern)
        ours = compile_wildmatch(pattern)
        for _ in range(20):
            path = bytes(rng.choice(b"aabx/") for _ in range(rng.randint(0, 10)))
            assert bool(ours.match(path)) == bool(reference.match(path)), (pattern, path)


def test_a_gitignore_with_many_stars_does_not_stall_the_walk(tmp_path: Path) -> None:
    """``*a*a*...*b`` against a long name of ``a``: the backtracking translation took minutes
    (the pytest timeout fails this test if it comes back)."""
    (tmp_path / ".gitignore").write_text("*a" * 12 + "*b\n")
    (tmp_path / ("a" * 200 + ".txt")).write_text("kept\n")
    (tmp_path / ("a" * 50 + "b")).write_text("ignored\n")
    (tmp_path / "main.py").write_text("print(1)\n")
    visible = ragls_visible_files(tmp_path)
    assert visible == ["a" * 200 + ".txt", "main.py"]

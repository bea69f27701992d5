"""Helpers that ask git itself which files a tree's ignore files leave in (the SPEC §8 oracle)."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

from ragls.ingest.admission import Admission
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.limits import Limits
from ragls.ingest.walk import Candidate, walk

GIT_ENV = {
    **{key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git_visible_files(root: Path) -> list[str]:
    """``git ls-files --others --exclude-standard`` of ``root`` in a fresh repository."""
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=GIT_ENV)
    try:
        output = subprocess.run(
            [
                "git",
                "-c",
                "core.excludesFile=",
                "-c",
                "core.quotePath=false",
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
            ],
            cwd=root,
            check=True,
            capture_output=True,
            env=GIT_ENV,
        ).stdout
    finally:
        subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    names = [os.fsdecode(name) for name in output.split(b"\0") if name]
    return sorted(name for name in names if name.rsplit("/", 1)[-1] != ".gitignore")


def ragls_visible_files(root: Path, limits: Limits | None = None) -> list[str]:
    admission = Admission(KnowledgeSourceConfig(root), limits or Limits.defaults())
    return sorted(item.path for item in walk(admission) if isinstance(item, Candidate))


NAME_PARTS = [
    "a",
    "b",
    "c",
    "ab",
    "x1",
    "Foo",
    "foo",
    "doc",
    "t_t",
    "m.py",
    "n.txt",
    "z.md",
    "q-q",
    "[ab]",
    "a b",
    "!x",
    "#h",
    "é",
    "*star",
    "back\\slash",
    "a.b.c",
]
PATTERN_ATOMS = [
    "*",
    "?",
    "**",
    "a",
    "b",
    "ab",
    "foo",
    "Foo",
    "*.py",
    "*.txt",
    "[ab]",
    "[!a]",
    "[^b]",
    "[a-c]",
    "[[:alpha:]]",
    "[[:digit:]]",
    "[[:upper:]]*",
    "x[0-9]",
    "\\*",
    "\\[a]",
    "[]a]",
    "t_t",
    "doc",
    "m.*",
    "q-q",
    "[[:punct:]]q",
    "*[[:lower:]]",
    "[[:space:]]",
    "a\\ b",
    "[a-]",
    "[--0]",
    "\\",
    "[",
    "!x",
    "\\!x",
    "\\#h",
    "?",
    "??",
    "[[:alpha:]-z]",
    "[[:bogus:]]",
    "[[:alpha:]",
    "[\\]]",
    "*star",
    "\\*star",
    "é",
    "?.b.c",
    "a.b.*",
    "back\\\\slash",
]


def random_pattern(rng: random.Random) -> str:
    segments = [rng.choice(PATTERN_ATOMS) for _ in range(rng.choice([1, 1, 1, 2, 2, 3]))]
    body = "/".join(segments)
    if rng.random() < 0.2:
        body = "/" + body
    if rng.random() < 0.1:
        body = "**/" + body
    if rng.random() < 0.2:
        body += "/"
    if rng.random() < 0.1:
        body += "/**"
    if rng.random() < 0.25:
        body = "!" + body
    roll = rng.random()
    if roll < 0.05:
        body += "   "  # trailing spaces are trimmed
    elif roll < 0.08:
        body += "\\ "  # an escaped trailing space is kept
    elif roll < 0.1:
        body = "#" + body  # a comment
    elif roll < 0.12:
        body = "\\#" + body  # an escaped hash is a pattern
    elif roll < 0.14:
        body += "\r"  # CR is part of the pattern (LF-only splitting)
    return body


def random_tree(rng: random.Random, root: Path, *, with_tnsignore: bool) -> dict[str, str]:
    """Build a random tree under ``root``; return the ignore files git should see, by directory."""
    directories = [""]
    for _ in range(rng.randint(2, 7)):
        parent = rng.choice(directories)
        name = rng.choice(NAME_PARTS)
        path = f"{parent}/{name}" if parent else name
        if path not in directories and not (root / path).is_file():
            (root / path).mkdir(parents=True, exist_ok=True)
            directories.append(path)
    for _ in range(rng.randint(4, 14)):
        parent = rng.choice(directories)
        name = rng.choice(NAME_PARTS) + rng.choice(["", "", "2", ".py", "\r", " "])
        path = f"{parent}/{name}" if parent else name
        target = root / path
        if not target.exists():
            target.write_text("x\n")
    git_view: dict[str, str] = {}
    for directory in rng.sample(directories, k=min(len(directories), rng.randint(1, 4))):
        lines = [random_pattern(rng) for _ in range(rng.randint(1, 6))]
        content = "\n".join(lines) + ("\n" if rng.random() < 0.7 else "")
        if rng.random() < 0.1:
            content = "\ufeff" + content
        base = root / directory if directory else root
        (base / ".gitignore").write_bytes(content.encode())
        git_view[directory] = content
        if with_tnsignore and rng.random() < 0.5:
            extra = "\n".join(random_pattern(rng) for _ in range(rng.randint(1, 3))) + "\n"
            (base / ".tnsignore").write_bytes(extra.encode())
            joined = content if content.endswith("\n") or not content else content + "\n"
            git_view[directory] = joined + extra
    return git_view

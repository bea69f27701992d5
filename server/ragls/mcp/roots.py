"""Which folders ``ragls mcp`` serves: the roots given on the command line, else the project
around the current directory (the nearest ancestor holding ``.git``, else the directory)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ragls.errors import InvalidArgumentError


def project_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def chosen_roots(given: Sequence[str], cwd: Path) -> list[Path]:
    """The resolved, distinct roots; InvalidArgumentError naming one that is not a folder."""
    if not given:
        return [project_root(cwd.resolve())]
    roots: list[Path] = []
    for text in given:
        root = (cwd / Path(text).expanduser()).resolve()
        if not root.is_dir():
            raise InvalidArgumentError(f"--root {text!r} is not a directory")
        if root not in roots:
            roots.append(root)
    return roots

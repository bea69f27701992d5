"""Default-skipped directories that git tracks files in: a likely surprise, said out loud.

A directory named ``build`` (or ``dist``, ``out``, ``target``...) is skipped by default, but
some projects keep sources there (sqlalchemy's ``doc/build/`` holds 227 tracked files). After a
full run the service asks git, once, how many tracked files each default-skipped directory
holds, and status reports them with how to re-admit them (SPEC §8: only the ten plain names can
be). Outside a git work tree, or without git, nothing is reported.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ragls.ingest.ignore.defaults import READMITTABLE_DIRS

GIT_TIMEOUT_SECONDS = 10


def tracked_counts(root: Path, directories: Iterable[str]) -> dict[str, int]:
    """Tracked files below each of ``directories`` (POSIX, relative to ``root``), those with
    none left out; {} when ``root`` is not in a git work tree or git cannot say."""
    wanted = sorted(set(directories))
    if not wanted:
        return {}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", *wanted],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if done.returncode != 0:
        return {}
    counts: Counter[str] = Counter()
    for raw in done.stdout.split(b"\0"):
        path = raw.decode("utf-8", "replace")
        for directory in wanted:
            if path.startswith(f"{directory}/"):
                counts[directory] += 1
                break
    return dict(sorted(counts.items()))


def hint(directory: str, count: int) -> str:
    """What status says about one such directory."""
    name = directory.rsplit("/", 1)[-1].lower()
    if name in READMITTABLE_DIRS:
        how = f'set defaultSkips without "{name}", or include "{directory}/**", to index them'
    else:
        how = "it is never indexed (a name skipped on every path)"
    return f"{directory}/ holds {count} files git tracks but is skipped by default: {how}"

"""Make the question set's checkouts from local clones (no network: clone or fetch them first).

    python eval/questions/checkout.py CLONES CHECKOUTS [QUESTIONS]

For each ``OWNER__NAME.meta.json``, finds a clone of OWNER/NAME in CLONES (a folder named
``OWNER__NAME``, ``OWNER+NAME`` or ``NAME``, bare or not; a bare one may sit in a ``repo``
subfolder) and writes the tree of the pinned commit to ``CHECKOUTS/OWNER__NAME`` with git
(``git archive`` is not used: it leaves out files marked export-ignore, often the tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def git_dir(clones: Path, owner: str, name: str) -> Path | None:
    for candidate in (f"{owner}__{name}", f"{owner}+{name}", name):
        for folder in (
            clones / candidate,
            clones / candidate / "repo",
            clones / candidate / ".git",
        ):
            if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
                return folder
    return None


def stored_files(git: Path, commit: str) -> tuple[list[bytes], list[bytes]]:
    """The paths of ``commit``'s files whose content the clone holds, and those it lacks (a
    partial or shallow mirror may leave out its largest files: binaries, images)."""
    listing = subprocess.run(
        ["git", f"--git-dir={git}", "ls-tree", "-r", "-z", commit],
        check=True,
        capture_output=True,
    ).stdout
    entries = []
    for entry in listing.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            _, kind, blob = info.split()
            if kind == b"blob":
                entries.append((blob, path))
    checked = subprocess.run(
        ["git", f"--git-dir={git}", "cat-file", "--batch-check=%(objectname)"],
        input=b"\n".join(blob for blob, _ in entries) + b"\n",
        check=True,
        capture_output=True,
    ).stdout.splitlines()
    present: list[bytes] = []
    absent: list[bytes] = []
    for (_, path), line in zip(entries, checked, strict=True):
        (absent if line.endswith(b" missing") else present).append(path)
    return present, absent


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    clones, checkouts = Path(sys.argv[1]), Path(sys.argv[2])
    questions = Path(sys.argv[3]) if len(sys.argv) == 4 else HERE  # e.g. eval/questions/fresh
    missing = 0
    for meta_file in sorted(questions.glob("*.meta.json")):
        meta = json.loads(meta_file.read_text())
        owner, name = meta["repo"].split("/")
        source = git_dir(clones, owner, name)
        if source is None:
            print(f"{meta['repo']}: no clone in {clones}", file=sys.stderr)
            missing += 1
            continue
        target = checkouts / meta_file.name.removesuffix(".meta.json")
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        present, absent = stored_files(source, meta["commit"])
        with tempfile.TemporaryDirectory() as scratch:
            environment = {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")}
            paths = Path(scratch) / "paths"
            paths.write_bytes(b"\0".join(present))
            subprocess.run(
                [
                    "git",
                    f"--git-dir={source}",
                    f"--work-tree={target}",
                    "checkout",
                    "-f",
                    meta["commit"],
                    f"--pathspec-from-file={paths}",
                    "--pathspec-file-nul",
                ],
                check=True,
                env=environment,
            )
        note = f" ({len(absent)} files whose content the clone lacks left out)" if absent else ""
        print(f"{meta['repo']} @ {meta['commit'][:12]} -> {target}{note}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())

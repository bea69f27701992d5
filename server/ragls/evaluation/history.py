"""Queries from a repository's history: each qualifying commit asks for the files it changed.

Read with git only (``git log``, ``git diff-tree``, ``git archive``); the work tree is never
touched, so PATH may be a working copy or a bare repository.

The window: the newest ``window`` non-merge commits reachable from ``rev`` (git's date order);
the corpus is the tree of ``base``, by default the first parent of the oldest of them, so every
query asks about code as it was before the change. A commit qualifies when:

* it is not a merge, its author is not a bot, and its subject is not a release, version bump,
  revert, formatting, lint, typo or dependency change (:data:`SKIPPED_SUBJECT`);
* against its first parent it modifies 1 to ``max_files`` source files (the code formats of
  :mod:`ragls.ingest.formats`), adds, deletes, renames or copies none, and every one of them is
  in the index of the base tree (so each answer can be found at all). Other files (docs,
  changelog fragments) may change alongside.

The query is the subject and body with issue references, URLs and trailers (``Signed-off-by:``,
``Change-Id:``, ``Fixes: #12`` ...) removed; a commit whose message has fewer than two words
left is skipped.
"""

from __future__ import annotations

import re
import subprocess
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ragls.core.validation import MAX_QUERY_CHARS
from ragls.errors import InvalidArgumentError
from ragls.ingest.formats import DocumentFormat, detect_by_name

BOT_AUTHOR = re.compile(
    r"\[bot\]|dependabot|renovate|github-actions|pre-commit-ci|greenkeeper|mergify|"
    r"allcontributors|snyk-bot|web-flow|copilot",
    re.IGNORECASE,
)
SKIPPED_SUBJECT = re.compile(
    r"^\s*(revert|merge|release|releasing|bump|prepare|v?\d+\.\d+(\.\d+)?\b)|"
    r"\b(typos?|spelling|misspell\w*|reformat\w*|formatting|fmt|lint(ing|er)?|black|isort|"
    r"prettier|rustfmt|gofmt|clippy|changelog|dependenc(y|ies)|deps|bump(ed|s)?|"
    r"version bump|release notes)\b",
    re.IGNORECASE,
)
TRAILER_KEYS = re.compile(
    r"^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|"
    r"suggested-by|helped-by|change-id|fixes|fixed|closes|closed|resolves|resolved|refs?|"
    r"references|see-also|cc|pull-request|pr|issue|bug|ticket|backport-of|cherry-picked-from)"
    r"\s*:",
    re.IGNORECASE,
)
TRAILER_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:\s+\S")
ISSUE_REFERENCE = re.compile(
    r"(?:[\w.-]+/[\w.-]+)?#\d+\b|\b(?:GH|gh)-\d+\b|https?://\S+|\(cherry picked from commit \w+\)"
)

EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")


@dataclass(frozen=True, slots=True)
class Query:
    """One commit as a retrieval query: its text and the files it changed (the answers)."""

    commit: str
    subject: str
    text: str
    answers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    message: str

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()


def git(repository: Path, *args: str) -> str:
    """Run git in ``repository`` and return its stdout; an error naming the command otherwise."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repository), *args],
            capture_output=True,
            check=False,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
    except FileNotFoundError:
        raise InvalidArgumentError(
            "git is not installed (ragls eval reads history with it)"
        ) from None
    if done.returncode != 0:
        raise InvalidArgumentError(
            f"git {' '.join(args[:2])} failed in {repository}: {done.stderr.strip()[:300]}"
        )
    return done.stdout


def resolve(repository: Path, rev: str) -> str:
    """The commit ``rev`` names; an error saying so when it names none (``--quiet`` leaves git
    nothing to say: a repository without commits, a mistyped revision)."""
    try:
        return git(repository, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except InvalidArgumentError as error:
        if not str(error).endswith(": "):  # git said why (not a repository): that is the answer
            raise
        if subprocess.run(
            ["git", "-C", str(repository), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            check=False,
        ).returncode:
            raise InvalidArgumentError(
                f"{repository} has no commits yet: ragls eval measures retrieval on a history"
            ) from None
        raise InvalidArgumentError(f"{rev!r} names no commit in {repository}") from None


def recent_commits(repository: Path, rev: str, window: int) -> list[Commit]:
    """The newest ``window`` non-merge commits reachable from ``rev``, newest first."""
    output = git(
        repository,
        "log",
        "--no-merges",
        f"--max-count={window}",
        "--format=%H%x00%P%x00%an <%ae>%x00%B%x1e",
        rev,
        "--",
    )
    commits = []
    for record in output.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, author, message = record.split("\x00", 3)
        commits.append(Commit(sha, tuple(parents.split()), author, message.strip()))
    return commits


def default_base(commits: list[Commit]) -> str:
    """The first parent of the oldest commit of the window."""
    if not commits or not commits[-1].parents:
        raise InvalidArgumentError("the history window reaches the root commit; pass --base")
    return commits[-1].parents[0]


def query_text(message: str) -> str:
    """The message without issue references, URLs and trailers, whitespace collapsed."""
    paragraphs = message.strip().split("\n\n")
    if len(paragraphs) > 1 and all(
        TRAILER_LINE.match(line) for line in paragraphs[-1].splitlines() if line.strip()
    ):
        paragraphs = paragraphs[:-1]  # git's trailer block
    kept = [
        line
        for paragraph in paragraphs
        for line in paragraph.splitlines()
        if not TRAILER_KEYS.match(line)
    ]
    text = EMPTY_BRACKETS.sub(" ", ISSUE_REFERENCE.sub(" ", "\n".join(kept)))
    return " ".join(text.split())[:MAX_QUERY_CHARS]


def is_source(path: str) -> bool:
    detected = detect_by_name(path.rsplit("/", 1)[-1])
    return detected is not None and detected.format is DocumentFormat.CODE


def changed_files(repository: Path, commit: Commit) -> list[tuple[str, str]]:
    """(status letter, path) of each file the commit changed against its first parent."""
    output = git(
        repository,
        "diff-tree",
        "-r",
        "-M",
        "--no-commit-id",
        "--name-status",
        "-z",
        commit.parents[0],
        commit.sha,
    )
    fields = output.split("\x00")
    changes: list[tuple[str, str]] = []
    position = 0
    while position < len(fields) and fields[position]:
        status = fields[position]
        if status[0] in "RC":  # a rename or copy names two paths
            changes.append((status[0], fields[position + 2]))
            position += 3
        else:
            changes.append((status[0], fields[position + 1]))
            position += 2
    return changes


def qualifying_queries(
    repository: Path,
    commits: Iterable[Commit],
    indexed: set[str],
    *,
    max_files: int = 4,
    limit: int | None = None,
) -> list[Query]:
    """The commits that qualify (module docstring), as queries, newest first."""
    queries: list[Query] = []
    for commit in commits:
        if limit is not None and len(queries) >= limit:
            break
        if len(commit.parents) != 1 or BOT_AUTHOR.search(commit.author):
            continue
        if SKIPPED_SUBJECT.search(commit.subject):
            continue
        text = query_text(commit.message)
        if len(text.split()) < 2:
            continue
        sources = [(status, path) for status, path in changed_files(repository, commit)]
        sources = [(status, path) for status, path in sources if is_source(path)]
        if not 1 <= len(sources) <= max_files:
            continue
        if any(status != "M" for status, _ in sources):
            continue
        answers = tuple(sorted(path for _, path in sources))
        if not all(path in indexed for path in answers):
            continue
        queries.append(Query(commit.sha, commit.subject, text, answers))
    return queries


def _regular_only(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo | None:
    """Files and directories through tarfile's ``data`` filter; links (which ingestion never
    follows anyway) and anything the filter refuses are left out rather than failing the run."""
    if not (member.isfile() or member.isdir()):
        return None
    try:
        return tarfile.data_filter(member, destination)
    except tarfile.FilterError:
        return None


def export_tree(repository: Path, rev: str, destination: Path) -> None:
    """Write the tree of ``rev`` into ``destination`` (``git archive``; no work tree used)."""
    process = subprocess.Popen(
        ["git", "-C", str(repository), "archive", "--format=tar", rev],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
            archive.extractall(destination, filter=_regular_only)
    except tarfile.TarError as error:
        raise InvalidArgumentError(f"git archive of {rev} could not be read: {error}") from error
    finally:
        process.stdout.close()
        stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
        if process.wait() != 0:
            raise InvalidArgumentError(f"git archive {rev} failed: {stderr.strip()[:300]}")

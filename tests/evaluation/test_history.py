from __future__ import annotations

from pathlib import Path

import pytest

from ragls.errors import InvalidArgumentError
from ragls.evaluation.history import BOT_AUTHOR, SKIPPED_SUBJECT, is_source, query_text, resolve


def test_the_query_drops_issue_references_urls_and_trailers() -> None:
    message = (
        "Fix pool reset on checkin (#1234)\n\n"
        "The connection was returned dirty, see https://example.com/x and GH-77.\n"
        "Fixes: #1233\n\n"
        "Signed-off-by: Dev <dev@example.com>\n"
        "Change-Id: I0123456789"
    )
    assert query_text(message) == (
        "Fix pool reset on checkin The connection was returned dirty, see and ."
    )


@pytest.mark.parametrize(
    "subject",
    [
        "Release 2.0.1",
        "Bump version to 1.4",
        "Fix typo in docs",
        'Revert "Add cache"',
        "Update dependencies",
        "chore(deps): update ruff",
        "Reformat with black",
        "1.2.3",
    ],
)
def test_chores_are_not_queries(subject: str) -> None:
    assert SKIPPED_SUBJECT.search(subject)


@pytest.mark.parametrize(
    "subject", ["Fix pool reset on checkin", "Add retry to the HTTP client", "Support async views"]
)
def test_changes_are_queries(subject: str) -> None:
    assert not SKIPPED_SUBJECT.search(subject)


def test_bots_are_recognised() -> None:
    assert BOT_AUTHOR.search("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>")
    assert not BOT_AUTHOR.search("Jane Dev <jane@example.com>")


def test_source_files_are_code_by_name() -> None:
    assert is_source("src/app.py") and is_source("lib/x.rs") and is_source("web/a.tsx")
    assert not is_source("README.md") and not is_source("docs/conf.yaml")


def test_a_revision_that_names_no_commit_says_why(tmp_path: Path) -> None:
    """git rev-parse --quiet says nothing: the error used to end at "failed in REPO: "."""
    from tests.gitrepo import git

    git(tmp_path, "init", "-q")
    with pytest.raises(InvalidArgumentError, match="has no commits yet"):
        resolve(tmp_path, "HEAD")
    (tmp_path / "a.py").write_text("x = 1\n")
    git(tmp_path, "add", "a.py")
    git(tmp_path, "commit", "-q", "-m", "first")
    assert len(resolve(tmp_path, "HEAD")) == 40
    with pytest.raises(InvalidArgumentError, match="'nope' names no commit"):
        resolve(tmp_path, "nope")

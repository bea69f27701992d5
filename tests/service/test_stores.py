"""Choosing a session's store (ragls.service.persistence.stores) and keying a checkout for a
team index (ragls.service.persistence.repository), without a database."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.errors import InvalidArgumentError
from ragls.service.persistence.repository import identify, normalise_remote
from ragls.service.persistence.stores import Publication, open_store, store_target
from ragls.service.settings.options import parse_options
from ragls.store.embedded import EmbeddedStore
from tests.gitrepo import git

DSN = "postgresql://ci:s3cret@db.example:5433/index"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/Owner/Name.git",
        "https://user:token@GitHub.com/Owner/Name",
        "git@github.com:Owner/Name.git",
        "ssh://git@github.com:22/Owner/Name.git",
        "github.com:Owner/Name/",
    ],
)
def test_every_spelling_of_a_remote_is_one_identity(url: str) -> None:
    assert normalise_remote(url) == "github.com/Owner/Name"


def test_a_local_path_remote_is_its_path() -> None:
    assert normalise_remote("/srv/git/project.git") == "srv/git/project"


def checkout(tmp_path: Path) -> Path:
    repository = tmp_path / "work"
    (repository / "server").mkdir(parents=True)
    (repository / "server" / "app.py").write_text("def main():\n    return 1\n")
    git(repository, "init", "-q", "-b", "main")
    git(repository, "remote", "add", "origin", "git@example.org:team/project.git")
    git(repository, "add", ".")
    git(repository, "commit", "-q", "-m", "one")
    (repository / "server" / "app.py").write_text("def main():\n    return 2\n")
    git(repository, "commit", "-q", "-am", "two")
    return repository


def test_identify_gives_remote_commit_and_ancestors_newest_first(tmp_path: Path) -> None:
    repository = checkout(tmp_path)
    found = identify(repository)
    assert found is not None
    assert found.repository == "example.org/team/project"
    assert len(found.ancestors) == 2 and found.ancestors[0] == found.commit
    assert not found.dirty
    (repository / "server" / "app.py").write_text("changed\n")
    assert identify(repository).dirty  # type: ignore[union-attr]


def test_a_subfolder_is_its_own_index(tmp_path: Path) -> None:
    found = identify(checkout(tmp_path) / "server")
    assert found is not None and found.repository == "example.org/team/project//server"


def test_no_identity_outside_git_or_without_a_remote(tmp_path: Path) -> None:
    assert identify(tmp_path) is None
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "a")
    assert identify(tmp_path) is None  # no remote: nothing shared to key it by


def test_the_setting_wins_over_the_file_and_the_environment(tmp_path: Path) -> None:
    secret = tmp_path / "dsn"
    secret.write_text(DSN + "\n")
    environ = {"RAGLS_STORE_FILE": str(secret), "RAGLS_STORE": "postgresql://other/db"}
    assert store_target("embedded", environ).dsn is None
    from_file = store_target(None, environ)
    assert from_file.dsn == DSN and "RAGLS_STORE_FILE" in from_file.origin
    assert store_target(None, {"RAGLS_STORE": DSN}).dsn == DSN
    assert store_target(None, {}).dsn is None
    assert "s3cret" not in repr(from_file)


def test_a_bad_store_names_its_source_and_never_echoes_the_value(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        store_target(None, {"RAGLS_STORE": "mysql://root:hunter2@db/x"})
    assert "$RAGLS_STORE" in str(caught.value) and "hunter2" not in str(caught.value)
    with pytest.raises(InvalidArgumentError, match=r"cannot read \$RAGLS_STORE_FILE"):
        store_target(None, {"RAGLS_STORE_FILE": str(tmp_path / "missing")})


def test_the_setting_is_validated_like_every_other() -> None:
    options, errors = parse_options({"persistence": {"store": "redis://localhost"}})
    assert options.persistence_store is None
    assert errors and "persistence.store" in errors[0] and "redis" not in errors[0]
    options, errors = parse_options({"persistence": {"store": DSN}})
    assert errors == [] and options.persistence_store == DSN


def test_a_consumer_that_cannot_be_keyed_keeps_the_embedded_store(tmp_path: Path) -> None:
    pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
    store = open_store(store_target(DSN, {}), tmp_path, str(tmp_path / "cache"))
    assert isinstance(store, EmbeddedStore)


def test_a_publication_that_cannot_be_keyed_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
    with pytest.raises(InvalidArgumentError, match="--repository and --ref"):
        open_store(store_target(DSN, {}), tmp_path, None, Publication())
    with pytest.raises(InvalidArgumentError, match="needs a postgresql"):
        open_store(store_target(None, {}), tmp_path, None, Publication("r", "x"))


def test_a_checkout_is_keyed_by_identity_and_commit(tmp_path: Path) -> None:
    pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
    repository = checkout(tmp_path)
    head = identify(repository).commit  # type: ignore[union-attr]
    consumer = open_store(store_target(DSN, {}), repository, None)
    assert (
        consumer.location == f"postgresql://db.example:5433/index example.org/team/project@{head}"
    )
    assert consumer.shared and not consumer.acquire()  # a consumer never writes
    publisher = open_store(store_target(DSN, {}), repository, None, Publication(ref="v1"))
    assert publisher.location.endswith("example.org/team/project@v1")

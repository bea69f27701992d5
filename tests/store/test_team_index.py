"""A team index end to end: ``ragls index --store`` publishes a commit from one checkout; the
CLI and the real daemon consume it from another checkout, at another path, with local edits
searchable and nothing written back; a later commit is published from its nearest ancestor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_restart import call, stop
from tests.e2e.test_transport import RawClient, initialize
from tests.gitrepo import git

pytestmark = pytest.mark.slow
psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
REMOTE = "git@example.org:team/shop.git"
IDENTITY = "example.org/team/shop"


def ragls(*arguments: str, cache: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragls", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"RAGLS_CACHE_DIR": str(cache)} | environment,
        check=False,
    )


def project(folder: Path) -> Path:
    files = {
        f"shop/module_{i}.py": f"def compute_total_{i}(items):\n    return sum(items) + {i}\n"
        for i in range(30)
    }
    files["shop/payment.py"] = "def charge_card(card, amount):\n    return gateway(card, amount)\n"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "remote", "add", "origin", REMOTE)
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "first")
    return folder


def head(folder: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def published(dsn: str) -> list[tuple[str, float]]:
    with psycopg.connect(dsn) as connection:
        rows = connection.execute(
            "SELECT ref, published_at FROM ragls_published WHERE repository = %s ORDER BY ref",
            (IDENTITY,),
        ).fetchall()
    return [(row[0], row[1]) for row in rows]


@pytest.fixture
def team(postgres_dsn: str) -> str:
    with psycopg.connect(postgres_dsn) as connection:  # each test starts without a team index
        if _has_schema(connection):
            connection.execute("DELETE FROM ragls_published WHERE repository = %s", (IDENTITY,))
            connection.execute("DELETE FROM ragls_generations WHERE repository = %s", (IDENTITY,))
    return postgres_dsn


def _has_schema(connection: Any) -> bool:
    row = connection.execute("SELECT to_regclass('ragls_published')").fetchone()
    return row is not None and row[0] is not None


def clone_of(source: Path, target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(target)], check=True)
    git(target, "remote", "set-url", "origin", "https://example.org/team/shop.git")
    return target


def test_publish_then_consume_from_another_checkout(team: str, tmp_path: Path) -> None:
    ci = project(tmp_path / "ci" / "shop")
    done = ragls("index", str(ci), "--store", team, cache=tmp_path / "ci-cache")
    assert done.returncode == 0, done.stderr
    assert "published generation 1 to postgresql://127.0.0.1:" in done.stderr
    assert f"{IDENTITY}@{head(ci)}" in done.stderr
    before = published(team)
    assert [ref for ref, _ in before] == [head(ci)]

    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    (laptop / "shop" / "payment.py").write_text("def refund_quokka(card):\n    return card\n")
    found = ragls(
        "search",
        str(laptop),
        "refund quokka",
        "-k",
        "1",
        cache=tmp_path / "cache",
        RAGLS_STORE=team,
    )
    assert found.returncode == 0, found.stderr
    assert "shop/payment.py:1" in found.stdout  # the uncommitted edit is searchable
    assert "from the stored index" in found.stderr  # it started from the team's generation
    answer = json.loads(
        ragls(
            "search",
            str(laptop),
            "compute_total_7",
            "--json",
            "-k",
            "1",
            "--store",
            team,
            cache=tmp_path / "cache",
        ).stdout
    )
    assert answer["results"][0]["metadata"]["file"] == "shop/module_7.py"
    assert published(team) == before  # a consumer never writes
    assert not list((tmp_path / "cache").glob("*/CURRENT"))  # nor into the embedded cache
    listed = json.loads(ragls("cache", "list", "--json", cache=tmp_path / "cache").stdout)
    assert [entry["root"] for entry in listed] == [str(laptop.resolve())]  # copies of the parts
    assert listed[0]["bytesOnDisk"] > 0 and listed[0]["generation"] is None


def test_a_commit_not_published_yet_starts_from_its_nearest_ancestor(
    team: str, tmp_path: Path
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "c").returncode == 0
    first = head(ci)
    (ci / "shop" / "payment.py").write_text("def settle_invoice(amount):\n    return amount\n")
    git(ci, "commit", "-q", "-am", "second")
    consumed = ragls("search", str(ci), "settle invoice", "--store", team, cache=tmp_path / "c")
    assert "shop/payment.py:1" in consumed.stdout
    assert "from the stored index" in consumed.stderr  # the first commit's generation
    done = ragls("index", str(ci), "--store", team, "--keep", "1", cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    assert "published generation 2" in done.stderr  # reconciled from first's generation 1
    refs = [ref for ref, _ in published(team)]
    assert refs == [head(ci)] and first not in refs  # --keep 1 retired the older commit


def test_publishing_needs_a_key_and_a_reachable_database(team: str, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("def a():\n    pass\n")
    refused = ragls("index", str(plain), "--store", team, cache=tmp_path / "c")
    assert refused.returncode == 2 and "--repository and --ref" in refused.stderr
    named = ragls(
        "index",
        str(plain),
        "--store",
        team,
        "--repository",
        "scratch/plain",
        "--ref",
        "v1",
        cache=tmp_path / "c",
    )
    assert named.returncode == 0 and "scratch/plain@v1" in named.stderr, named.stderr
    down = "postgresql://nobody:pw-never-shown@127.0.0.1:1/none"
    failed = ragls(
        "index",
        str(plain),
        "--store",
        down,
        "--repository",
        "x",
        "--ref",
        "y",
        cache=tmp_path / "c",
    )
    assert failed.returncode == 1 and "publishing failed" in failed.stderr
    assert "pw-never-shown" not in failed.stderr + failed.stdout
    bad = ragls("index", str(plain), "--store", "mysql://x", cache=tmp_path / "c")
    assert bad.returncode == 2 and "persistence.store must be" in bad.stderr
    nowhere = ragls("index", str(plain), "--publish", "--ref", "v1", cache=tmp_path / "c")
    assert nowhere.returncode == 2 and "publishing needs a postgresql:// store" in nowhere.stderr


def test_ci_publishes_with_the_dsn_in_a_file(team: str, tmp_path: Path) -> None:
    ci = project(tmp_path / "ci" / "shop")
    secret = tmp_path / "store-dsn"
    secret.write_text(team + "\n")
    done = ragls("index", str(ci), "--publish", cache=tmp_path / "c", RAGLS_STORE_FILE=str(secret))
    assert done.returncode == 0, done.stderr
    assert [ref for ref, _ in published(team)] == [head(ci)]


def test_the_daemon_consumes_the_team_index_and_keeps_edits_in_memory(
    team: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "c").returncode == 0
    before = published(team)
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    (laptop / "shop" / "module_3.py").write_text("def wombat_ledger():\n    return 3\n")
    secret = tmp_path / "store-dsn"
    secret.write_text(team + "\n")
    monkeypatch.setenv("RAGLS_STORE_FILE", str(secret))
    client = RawClient()
    initialize(client, laptop)
    status = call(client, 2, "rag/status", {})
    cache = status["cache"]
    assert cache["state"] == "reader" and cache["loadedGeneration"] == 1
    assert "team index" in cache["detail"] and IDENTITY in cache["path"]
    assert status["lastRun"]["filesChunked"] == 1  # only the local edit was chunked again
    answer = call(client, 3, "rag/search", {"query": "wombat ledger", "topK": 1})
    assert answer["results"][0]["metadata"]["file"] == "shop/module_3.py"
    stop(client)  # shutdown saves what a writer would: a consumer writes nothing
    assert published(team) == before


def test_search_in_the_database_from_a_checkout_without_an_index(team: str, tmp_path: Path) -> None:
    ci = project(tmp_path / "ci" / "shop")
    done = ragls("index", str(ci), "--store", team, "--database-search", cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    git(laptop, "commit", "-q", "--allow-empty", "-m", "local, not published")
    found = ragls(
        "search",
        str(laptop),
        "charge card",
        "--in-database",
        "--json",
        "--store",
        team,
        cache=tmp_path / "laptop-cache",
    )
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["ref"] == head(ci)  # the nearest published ancestor
    assert answer["results"][0]["metadata"]["file"] == "shop/payment.py"
    assert not (tmp_path / "laptop-cache").exists()  # nothing indexed, nothing cached
    plain = ragls("index", str(ci), "--store", team, cache=tmp_path / "c")  # no tables now
    assert plain.returncode == 0
    refused = ragls("search", str(ci), "charge", "--in-database", "--store", team, cache=tmp_path)
    assert refused.returncode == 2 and "--database-search" in refused.stderr


def test_a_second_publisher_of_the_same_commit_waits_its_turn(team: str, tmp_path: Path) -> None:
    from ragls.store.postgres import PostgresStore

    ci = project(tmp_path / "ci" / "shop")
    holder = PostgresStore(team, IDENTITY, head(ci))
    assert holder.acquire()  # another CI job is publishing this commit
    job = subprocess.Popen(
        [sys.executable, "-m", "ragls", "index", str(ci), "--store", team],
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"RAGLS_CACHE_DIR": str(tmp_path / "c")},
    )
    assert job.stderr is not None
    waited = ""
    for line in job.stderr:  # ends at EOF if the job gave up instead of waiting
        waited += line
        if "for the writer lock of" in line:
            break
    assert f"process {os.getpid()}" in waited, waited
    holder.release()
    rest = job.stderr.read()
    assert job.wait(timeout=60) == 0, waited + rest
    assert "published generation 1" in rest
    assert [ref for ref, _ in published(team)] == [head(ci)]

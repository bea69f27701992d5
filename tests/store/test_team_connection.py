"""A team store's connections: a database that holds a lock costs a consumer seconds and a
local index, never a hang; a DSN's password appears in no message and no log line. Through the
CLI and the real daemon as processes, against a real, throwaway PostgreSQL."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_restart import call, stop
from tests.e2e.test_transport import RawClient, send_initialize
from tests.gitrepo import git
from tests.store.test_team_index import clone_of, head, project, ragls, team  # noqa: F401

pytestmark = pytest.mark.slow
psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
PASSWORD = "hunter2%zz"  # libpq cannot decode "%zz", and quoted it in its error


def with_password(dsn: str) -> str:
    return dsn.replace("postgresql://ragls@", f"postgresql://ragls:{PASSWORD}@")


def test_a_locked_table_costs_a_consumer_seconds_and_a_local_index(
    team: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "ci-cache").returncode == 0
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    with psycopg.connect(team) as holder:  # a migration, a VACUUM FULL, a stuck session
        holder.execute("LOCK TABLE ragls_published IN ACCESS EXCLUSIVE MODE")
        began = time.monotonic()
        result = ragls("index", str(laptop), cache=tmp_path / "cache", RAGLS_STORE=team)
        took = time.monotonic() - began
        holder.rollback()
    assert result.returncode == 0, result.stderr
    assert took < 30, took
    note = result.stderr[result.stderr.index("cache: note") :]
    assert "lock timeout" in note and "built from the files" in note
    found = ragls(
        "search", str(laptop), "charge card", "-k", "1", cache=tmp_path / "cache", RAGLS_STORE=team
    )
    assert "shop/payment.py:1" in found.stdout


def test_a_dsn_libpq_cannot_parse_is_never_quoted(team: str, tmp_path: Path) -> None:  # noqa: F811
    ci = project(tmp_path / "ci" / "shop")
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    dsn = with_password(team)
    consumed = ragls("index", str(laptop), cache=tmp_path / "cache", RAGLS_STORE=dsn)
    published = ragls("index", str(ci), "--store", dsn, cache=tmp_path / "ci-cache")
    for done in (consumed, published):
        assert "hunter2" not in done.stdout + done.stderr
    assert consumed.returncode == 0, consumed.stderr
    assert "cannot connect to postgresql://" in consumed.stderr
    assert published.returncode != 0 and "cannot connect" in published.stderr


def test_the_daemon_logs_no_password_at_info_level(
    team: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    client = RawClient("--log-level", "info")
    assert client.process.stderr is not None
    logged: list[bytes] = []
    reader = threading.Thread(target=lambda: logged.append(client.process.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    folders = [{"uri": laptop.as_uri(), "name": "shop"}]
    options = {"persistence": {"store": with_password(team)}}
    messages: list[dict[str, Any]] = [send_initialize(client, folders, options)]
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    while (message := client.receive()).get("method") != "rag/indexUpdated":
        messages.append(message)
    status = call(client, 2, "rag/status", {})
    stop(client)
    reader.join(timeout=30)
    assert b"Language server initialized" in logged[0]  # the line that held the DSN
    assert b"hunter2" not in logged[0]
    assert "hunter2" not in json.dumps([*messages, status])
    assert "cannot connect to postgresql://" in status["cache"]["detail"]


def daemon_statuses(laptop: Path, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``rag/status`` of a real daemon on ``laptop`` asked for without pause from
    ``initialized`` until its first generation, and one after it."""
    client = RawClient()
    send_initialize(client, [{"uri": laptop.as_uri(), "name": "shop"}], options)
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    statuses, updated, request = [], False, 10
    while not updated:
        request += 1
        client.send({"jsonrpc": "2.0", "id": request, "method": "rag/status", "params": {}})
        while (message := client.receive()).get("id") != request:
            updated = updated or message.get("method") == "rag/indexUpdated"
        statuses.append(message["result"])
    statuses.append(call(client, 2, "rag/status", {}))
    stop(client)
    return statuses


def daemon_status(laptop: Path, options: dict[str, Any]) -> dict[str, Any]:
    """``rag/status`` of a real daemon on ``laptop`` right after its first generation."""
    return daemon_statuses(laptop, options)[-1]


def test_a_consumer_that_cannot_reach_the_team_index_says_it_fell_back(
    team: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "ci-cache").returncode == 0
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    status = daemon_status(laptop, {"persistence": {"store": with_password(team)}})
    cache = status["cache"]
    assert cache["loadedGeneration"] is None
    assert cache["detail"].startswith("fell back to a local index built from the files")
    assert "cannot connect to postgresql://" in cache["detail"]
    assert "reads the team index" not in cache["detail"]
    assert any("cannot connect to postgresql://" in warning for warning in status["warnings"])
    assert "hunter2" not in json.dumps(status)


def test_status_names_the_ancestor_it_loaded_not_the_unpublished_commit(
    team: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "ci-cache").returncode == 0
    published = head(ci)
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    (laptop / "shop" / "payment.py").write_text("def refund_card(card):\n    return card\n")
    git(laptop, "commit", "-q", "-am", "not published")
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    statuses = daemon_statuses(laptop, {"persistence": {"store": team}})
    loaded = [status["cache"] for status in statuses if status["cache"]["loadedGeneration"]]
    assert loaded and loaded[-1]["loadedGeneration"] == 1
    for cache in loaded:  # from the first answer after the load on, not 10 s later
        assert f"published for {published[:12]}" in cache["detail"], cache["detail"]
        assert head(laptop)[:12] not in cache["detail"]

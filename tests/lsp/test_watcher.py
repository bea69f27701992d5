"""The watcher, without the daemon (SPEC §9); the debouncer's own tests are in tests/service."""

from __future__ import annotations

import errno
import time
from pathlib import Path

import pytest

from ragls.ingest.admission import Admission
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.limits import Limits
from ragls.service.session.debounce import Debouncer
from ragls.watch import watcher as watcher_module
from ragls.watch.watcher import WorkspaceWatcher
from tests.collector import Collector
from tests.ingest.trees import make_tree


def watcher_for(root: Path, debouncer: Debouncer) -> WorkspaceWatcher:
    admission = Admission(KnowledgeSourceConfig(root), Limits.defaults())
    return WorkspaceWatcher(root, admission, debouncer)


def test_only_admitted_directories_are_watched(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            ".gitignore": "generated/\n",
            "src/a/x.py": "x",
            "node_modules/dep/lib/i.js": "x",
            "build/out/o.txt": "x",
            "generated/g/g.txt": "x",
            ".git/objects/o": "x",
        },
    )
    debouncer = Debouncer(Collector())
    watcher = watcher_for(tmp_path, debouncer)
    watcher.start()
    try:
        assert watcher.watched_directories() == ["", "src", "src/a"]
    finally:
        watcher.stop()
        debouncer.stop()


def test_events_become_changed_paths(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/a.py": "x"})
    collected = Collector()
    debouncer = Debouncer(collected, delay=0.05)
    watcher = watcher_for(tmp_path, debouncer)
    watcher.start()
    try:
        (tmp_path / "src" / "b.py").write_text("new")
        (tmp_path / "src" / "a.py").unlink()
        (tmp_path / "node_modules").mkdir()
        collected.wait_for(
            lambda calls: {"src/b.py", "src/a.py"} <= set().union(*(paths for paths, _ in calls))
        )
        (tmp_path / "new" / "deep").mkdir(parents=True)
        deadline = time.monotonic() + 10
        while "new/deep" not in watcher.watched_directories():  # the new directory is watched
            assert time.monotonic() < deadline, "new/deep was never watched"
            time.sleep(0.01)
        (tmp_path / "new" / "deep" / "c.py").write_text("x")
        collected.wait_for(
            lambda calls: "new/deep/c.py" in set().union(*(paths for paths, _ in calls))
        )
        assert "new/deep" in watcher.watched_directories()
        seen = set().union(*(paths for paths, _ in collected.calls))
        assert "node_modules" not in seen
    finally:
        watcher.stop()
        debouncer.stop()


def test_an_exhausted_watch_limit_asks_for_rescans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path, {f"d{i}/f.txt": "x" for i in range(5)})
    real_add = watcher_module.InotifyFD.add_callback
    calls: list[int] = []

    def limited(self: object, *args: object) -> object:
        calls.append(1)
        if len(calls) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_add(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(watcher_module.InotifyFD, "add_callback", limited)
    collected = Collector()
    debouncer = Debouncer(collected, delay=0.01)
    watcher = watcher_for(tmp_path, debouncer)
    watcher.start()
    try:
        assert watcher.state == "exhausted"
        assert watcher.watch_count == 3
        assert "watch limit" in watcher.detail
        collected.wait_for(lambda calls: any(full for _, full in calls))
    finally:
        watcher.stop()
        debouncer.stop()

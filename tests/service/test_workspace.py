"""The workspace layer without watchdog or LSP: sessions, the injected change feed, scheduling."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import ClassVar

from ragls.ingest.admission import Admission
from ragls.service.session.debounce import Debouncer
from ragls.service.session.scheduler import IndexJob
from ragls.service.session.sessions import SessionManager
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions
from ragls.service.status import IndexStatus
from tests.ingest.trees import make_tree


class FakeFeed:
    """A change feed a test drives by hand."""

    built: ClassVar[list[FakeFeed]] = []

    def __init__(self, root: Path, admission: Admission, debouncer: Debouncer) -> None:
        self.root, self.admission, self.debouncer = root, admission, debouncer
        self.state, self.detail = "stopped", ""
        FakeFeed.built.append(self)

    @property
    def watch_count(self) -> int:
        return 1 if self.state == "watching" else 0

    def start(self) -> None:
        self.state = "watching"

    def stop(self) -> None:
        self.state = "stopped"

    def set_admission(self, admission: Admission) -> None:
        self.admission = admission


class Commits:
    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.seen: list[tuple[str, int, list[str] | None]] = []

    def __call__(self, session: str, status: IndexStatus, changed: list[str] | None) -> None:
        with self.condition:
            self.seen.append((session, status.generation, changed))
            self.condition.notify_all()

    def wait_for(self, count: int) -> None:
        with self.condition:
            assert self.condition.wait_for(lambda: len(self.seen) >= count, timeout=30)


def test_a_folder_session_is_indexed_watched_and_kept_fresh(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws", {"src/a.py": "def alpha():\n    return 1\n"})
    commits = Commits()
    workspace = Workspace(WorkspaceOptions(debounce_ms=10), commits, change_feed=FakeFeed)
    session = workspace.open_folder(root.as_uri())
    workspace.submit_index(session, IndexJob(path=str(root)))
    commits.wait_for(1)
    workspace.start_watching(session)
    feed = FakeFeed.built[-1]
    assert feed.root == root and feed.state == "watching"

    assert not session.stale
    (root / "src" / "b.py").write_text("def zebracorn_beta():\n    return 2\n")
    feed.debouncer.delay = 60.0  # hold the change in the debouncer: the index is stale
    feed.debouncer.add("src/b.py")  # what the real watcher does on an event
    assert session.stale
    feed.debouncer.delay = 0.0
    feed.debouncer.add("src/b.py")  # wakes the debouncer, now due at once
    commits.wait_for(2)
    assert commits.seen[-1] == (root.as_uri(), 2, ["src/b.py"])
    assert [r.metadata["file"] for r in session.service.search("zebracorn", 1)] == ["src/b.py"]
    deadline = time.monotonic() + 10
    while session.stale:  # the committed run clears it (the scheduler marks idle after notifying)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert session.service.generation == 2

    assert workspace.close_session(root.as_uri())
    assert feed.state == "stopped" and workspace.get(root.as_uri()) is None


def test_without_a_change_feed_folders_are_not_watched(tmp_path: Path) -> None:
    workspace = Workspace()
    session = workspace.open_folder(make_tree(tmp_path, {"a.py": "x = 1\n"}).as_uri())
    workspace.start_watching(session)
    assert session.watcher is None


def test_a_session_manager_fronts_the_same_registry() -> None:
    workspace = Workspace()
    manager = SessionManager(workspace=workspace)
    service = manager.get_rag("assistant")
    assert workspace.open_session("assistant").service is service
    assert manager.session_ids() == ["assistant"] and "assistant" in manager
    assert manager.remove_session("assistant")
    assert workspace.get("assistant") is None and len(manager) == 0


def test_a_session_only_searched_starts_no_thread() -> None:
    before = threading.active_count()
    manager = SessionManager()
    for name in ("a", "b", "c"):
        manager.get_rag(name).add_document(f"note {name}")
    assert threading.active_count() == before

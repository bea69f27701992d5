"""RagService.index_directory: status, generations, added documents and errors (SPEC §7-§8)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragls import IndexProgress, Limits, RagService
from ragls.errors import IndexRejectedError, InvalidArgumentError
from tests.gitrepo import git
from tests.ingest.trees import make_tree


def project(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path,
        {
            "src/auth.py": "def login(user, password):\n    return check(password)\n",
            "src/db.py": "class Database:\n    def connect(self):\n        pass\n",
            "README.md": "# Project\n\nHow authentication works.\n",
            ".env": "SECRET=1",
            "node_modules/x/index.js": "module.exports = 1",
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
        },
    )


def test_index_then_search_with_provenance(tmp_path: Path) -> None:
    rag = RagService()
    status = rag.index_directory(project(tmp_path))
    assert (status.file_count, status.generation) == (3, 1)
    assert status.indexed_path == str(tmp_path.resolve())
    assert status.last_index_time is not None
    assert status.skipped == {"binary": 1, "default-skip": 1, "secret": 1}
    top = rag.search("database connect", 3)[0]
    assert top.metadata["file"] == "src/db.py"
    assert top.metadata["symbol"] == "Database"
    assert top.metadata["kind"] == "class"
    assert top.metadata["language"] == "python"
    assert top.id == "src/db.py:1-3"


def test_progress_ticks_are_index_progress_values(tmp_path: Path) -> None:
    ticks: list[IndexProgress] = []
    RagService().index_directory(project(tmp_path), ticks.append)
    # Four candidates: the PNG is read, found binary and skipped.
    assert [t.indexed_files for t in ticks] == [1, 2, 3, 4]
    assert {t.total_files for t in ticks} == {4}
    assert ticks[-1].current_file


def test_status_carries_the_running_runs_progress_and_drops_it_when_idle(tmp_path: Path) -> None:
    rag = RagService()
    seen = []
    rag.index_directory(project(tmp_path), progress=lambda tick: seen.append(rag.get_status()))
    assert seen and all(status.indexing for status in seen)
    last = seen[-1].progress
    assert last is not None and (last.indexed_files, last.total_files) == (4, 4)  # and the PNG
    assert last.current_file in {"src/auth.py", "src/db.py", "README.md", "logo.png"}
    assert rag.get_status().progress is None and not rag.get_status().indexing


def test_added_documents_survive_reindexing_and_are_searched_together(tmp_path: Path) -> None:
    rag = RagService()
    root = project(tmp_path)
    doc_id = rag.add_document("The login flow uses OAuth tokens", {"source": "user"})
    rag.index_directory(root)
    rag.index_directory(root, force=True)
    assert [info.id for info in rag.list_documents()] == [doc_id]
    ids = [r.id for r in rag.search("login", 10)]
    assert doc_id in ids and "src/auth.py:1-2" in ids
    assert rag.get_status().generation == 2


def test_indexed_chunks_are_not_removable_as_documents(tmp_path: Path) -> None:
    rag = RagService()
    rag.index_directory(project(tmp_path))
    assert rag.get_document("src/db.py:1-3") is not None
    assert rag.remove_document("src/db.py:1-3") is False
    assert rag.list_documents() == []


def test_clear_resets_everything_and_the_next_run_starts_cold(tmp_path: Path) -> None:
    rag = RagService()
    root = project(tmp_path)
    rag.index_directory(root)
    rag.clear()
    assert rag.get_status().file_count == 0
    assert rag.search("database", 5) == []
    status = rag.index_directory(root)
    assert (status.file_count, status.generation) == (3, 1)
    report = rag.last_report
    assert report is not None and report.files_read == 3


def test_bad_paths_are_clear_errors(tmp_path: Path) -> None:
    rag = RagService()
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        rag.index_directory(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(InvalidArgumentError, match="not a directory"):
        rag.index_directory(tmp_path / "file.txt")
    with pytest.raises(InvalidArgumentError, match="path"):
        rag.index_directory(42)  # type: ignore[arg-type]


def test_a_rejected_run_keeps_the_index_and_reports_the_error(tmp_path: Path) -> None:
    rag = RagService(limits=Limits(max_files=3))  # the three text files (the PNG is not read)
    root = project(tmp_path)
    rag.index_directory(root)
    (root / "src/more.py").write_text("x = 1\n")
    with pytest.raises(IndexRejectedError, match="max_files"):
        rag.index_directory(root)
    status = rag.get_status()
    assert (status.file_count, status.generation) == (3, 1)
    assert status.last_error is not None and "max_files" in status.last_error
    assert rag.search("database", 3)


def test_index_runs_of_one_session_take_turns(tmp_path: Path) -> None:
    rag = RagService()
    root = project(tmp_path)
    inside = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def slow_progress(progress: IndexProgress) -> None:
        inside.set()
        release.wait(5)

    first = threading.Thread(
        target=lambda: (rag.index_directory(root, slow_progress), order.append("first"))
    )
    first.start()
    assert inside.wait(5)
    assert rag.get_status().indexing is True
    second = threading.Thread(target=lambda: (rag.index_directory(root), order.append("second")))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first run's lock
    assert rag.search("database", 3) is not None  # searches do not wait
    release.set()
    first.join(5)
    second.join(5)
    assert order == ["first", "second"]
    assert rag.get_status().generation == 2


def test_a_changed_paths_run_keeps_the_skip_counts_of_the_rest(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "src/a.py": "def alpha():\n    return 1\n",
            "src/b.py": "def beta():\n    return 2\n",
            ".env": "TOKEN=1",
            ".gitignore": "generated/\n",
            "generated/g.py": "x = 1\n",
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
        },
    )
    rag = RagService()
    full = rag.index_directory(root).skipped
    assert full  # secret, ignored, binary
    (root / "src" / "a.py").write_text("def alpha():\n    return 10\n")
    after = rag.index_directory(root, changed_paths=["src/a.py"]).skipped
    assert after == full
    (root / "logo.png").unlink()
    after_delete = rag.index_directory(root, changed_paths=["logo.png"]).skipped
    assert sum(after_delete.values()) == sum(full.values()) - 1


def test_explain_path_says_indexed_or_why_not(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {".gitignore": "*.log\n", "src/a.py": "def alpha():\n    return 1\n", "x.log": "noise"},
    )
    rag = RagService()
    with pytest.raises(InvalidArgumentError, match="index it first"):
        rag.explain_path("src/a.py")
    rag.index_directory(root)
    indexed = rag.explain_path(root / "src" / "a.py")
    assert (indexed.path, indexed.indexed, indexed.chunks) == ("src/a.py", True, 1)
    ignored = rag.explain_path("x.log")
    assert (ignored.indexed, ignored.reason, ignored.detail) == (
        False,
        "ignored",
        ".gitignore:1: *.log",
    )
    (root / "src" / "b.py").write_text("def beta():\n    return 2\n")
    pending = rag.explain_path("src/b.py")
    assert (pending.indexed, pending.reason) == (False, "pending")


def test_default_skipped_directories_that_git_tracks_are_reported(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "src/a.py": "x = 1\n",
            "doc/build/intro.rst": "Intro\n=====\n",
            "doc/build/api.rst": "API\n===\n",
            "dist/untracked.js": "1\n",
        },
    )
    rag = RagService()
    assert rag.index_directory(root).tracked_in_skipped == {}  # not a git work tree
    git(root, "init", "-q")
    git(root, "add", "src", "doc")
    status = rag.index_directory(root)
    assert dict(status.tracked_in_skipped) == {"doc/build": 2}
    [hint] = status.hints
    assert hint.startswith("doc/build/ holds 2 files git tracks but is skipped by default")
    assert 'defaultSkips without "build"' in hint


def test_status_counts_files_chunked_without_a_grammar(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "src" / "report.pl").write_text("print 1;\n")
    rag = RagService()
    assert rag.index_directory(root).windowed_languages == {"perl": 1}
    (root / "src" / "report.pl").unlink()
    rag.index_directory(root)
    assert rag.get_status().windowed_languages == {}

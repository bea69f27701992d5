"""Files that change under a running index run (the fault suite of docs/security.md): the run
commits or fails cleanly, nothing raises out of it, and the next run agrees with a fresh index."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.service.status import IndexProgress
from tests.ingest.trees import make_tree

FILES = {f"pkg/m{i:02d}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(40)}


def answers(service: RagService) -> list[list[str]]:
    queries = ["helper value", "helper 7", "return value", "walrus"]
    return [sorted(r.id for r in service.search(q, 50)) for q in queries]


def delete(path: Path) -> None:
    path.unlink(missing_ok=True)


def truncate(path: Path) -> None:
    path.write_bytes(b"")


def into_directory(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.mkdir()
    (path / "inner.py").write_text("def walrus():\n    pass\n")


def into_symlink(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.symlink("/etc/passwd", path)


def directory_gone(path: Path) -> None:
    shutil.rmtree(path.parent, ignore_errors=True)


@pytest.mark.parametrize("change", [delete, truncate, into_directory, into_symlink, directory_gone])
def test_a_file_changed_in_the_middle_of_a_run(tmp_path: Path, change: object) -> None:
    root = make_tree(tmp_path, FILES)
    service = RagService(pipeline=WORKSPACE)
    service.index_directory(root)
    for name in FILES:  # change them so the next run reads every file
        (root / name).write_text((root / name).read_text() + "# edited\n")
    victims = [root / "pkg" / f"m{i:02d}.py" for i in (5, 20, 35)]

    def meddle(tick: IndexProgress) -> None:
        if tick.indexed_files in (3, 18, 33):
            change(victims[(3, 18, 33).index(tick.indexed_files)])  # type: ignore[operator]

    try:
        service.index_directory(root, meddle)
    except Exception as error:  # a refusal is fine; a crash of the service is not
        assert "ragls" in type(error).__module__, error
    assert "/etc/passwd" not in str([r.content for r in service.search("root", 50)])
    service.index_directory(root)  # the next run converges
    fresh = RagService(pipeline=WORKSPACE)
    fresh.index_directory(root)
    assert answers(service) == answers(fresh)

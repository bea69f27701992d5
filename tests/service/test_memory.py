from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragls.service import stored
from ragls.service.memory import release_free_memory
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_free_memory_can_be_released_on_linux() -> None:
    assert release_free_memory() is True
    assert release_free_memory() is True  # repeatable, and harmless


def saved_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large: int
) -> tuple[RagService, list[int]]:
    """A persisted service over two files, whose saves of ``large`` chunks or more return the
    freed heap (the calls counted)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "b.py").write_text("def beta():\n    return 2\n")
    released: list[int] = []
    monkeypatch.setattr(stored, "LARGE_COMMIT_CHUNKS", large)
    monkeypatch.setattr(stored, "release_free_memory", lambda: released.append(1) or True)
    persistence = Persistence(EmbeddedStore(root, tmp_path / "cache"), quiet_seconds=3600.0)
    service = RagService(pipeline=WORKSPACE, persistence=persistence)
    service.index_directory(root)
    return service, released


def test_a_save_of_a_large_generation_returns_its_buffers_to_the_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, released = saved_service(tmp_path, monkeypatch, large=2)
    assert service.persistence is not None and service.persistence.flush()
    assert released == [1]
    assert service.persistence.store.info().generation is not None  # and it was saved


def test_a_save_of_a_small_generation_leaves_the_heap_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, released = saved_service(tmp_path, monkeypatch, large=3)
    assert service.persistence is not None and service.persistence.flush()
    assert released == []

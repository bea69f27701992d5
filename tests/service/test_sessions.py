from __future__ import annotations

import threading

import pytest

from ragls import RagService, SessionManager
from ragls.errors import InvalidArgumentError


def test_get_rag_creates_on_first_use_and_returns_the_same_service() -> None:
    manager = SessionManager()
    first = manager.get_rag("file:///project")
    assert manager.get_rag("file:///project") is first
    assert manager.get_rag("other") is not first
    assert manager.session_ids() == ["file:///project", "other"]


def test_sessions_are_isolated() -> None:
    manager = SessionManager()
    manager.get_rag("a").add_document("only in a")
    assert manager.get_rag("b").search("only", 5) == []


def test_remove_session_clears_and_drops() -> None:
    created: list[RagService] = []

    def factory() -> RagService:
        created.append(RagService())
        return created[-1]

    manager = SessionManager(factory)
    manager.get_rag("s").add_document("kept until removed")
    assert manager.remove_session("s") is True
    assert created[0].list_documents() == []
    assert "s" not in manager
    assert manager.remove_session("s") is False
    assert manager.get_rag("s") is not created[0]


def test_concurrent_first_use_creates_exactly_one_service() -> None:
    calls: list[int] = []
    barrier = threading.Barrier(8)

    def factory() -> RagService:
        calls.append(1)
        return RagService()

    manager = SessionManager(factory)
    seen: list[RagService] = []

    def worker() -> None:
        barrier.wait()
        seen.append(manager.get_rag("shared"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert all(service is seen[0] for service in seen)


@pytest.mark.parametrize("bad", ["", "   ", None, 3, "x" * 5000])
def test_bad_session_ids_are_refused(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="session id"):
        SessionManager().get_rag(bad)  # type: ignore[arg-type]

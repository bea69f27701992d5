"""SessionManager: one RagService per session id, created on first use (SPEC §7)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ragls.errors import InvalidArgumentError
from ragls.service.rag_service import RagService

MAX_SESSION_ID_CHARS = 4096


def _check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not session_id.strip():
        raise InvalidArgumentError("session id must be a non-empty string")
    if len(session_id) > MAX_SESSION_ID_CHARS:
        raise InvalidArgumentError(
            f"session id is {len(session_id)} characters long; "
            f"the maximum is {MAX_SESSION_ID_CHARS}"
        )
    return session_id


class SessionManager:
    """Thread-safe registry of sessions; ``factory`` builds each new session's service."""

    def __init__(self, factory: Callable[[], RagService] = RagService) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._sessions: dict[str, RagService] = {}

    def get_rag(self, session_id: str) -> RagService:
        """The session's service, created on first use (exactly once, even under contention)."""
        _check_session_id(session_id)
        with self._lock:
            service = self._sessions.get(session_id)
            if service is None:
                service = self._factory()
                self._sessions[session_id] = service
            return service

    def find(self, session_id: str) -> RagService | None:
        """The session's service if it exists; never creates one."""
        with self._lock:
            return self._sessions.get(session_id)

    def remove_session(self, session_id: str) -> bool:
        """Clear and drop the session; False if there was none."""
        with self._lock:
            service = self._sessions.pop(session_id, None)
        if service is None:
            return False
        service.clear()  # outside the manager's lock: clear waits for a running index
        return True

    def session_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._sessions)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            return session_id in self._sessions

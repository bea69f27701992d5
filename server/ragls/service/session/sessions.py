"""SessionManager: one RagService per session id, created on first use (SPEC §7).

The seed's public name over the workspace layer's registry (:class:`Workspace`): the daemon,
the CLI and a library user all keep their sessions in one place, and a SessionManager made over
a daemon's Workspace sees exactly the daemon's sessions.
"""

from __future__ import annotations

from collections.abc import Callable

from ragls.errors import InvalidArgumentError
from ragls.service.rag_service import RagService
from ragls.service.session.workspace import Workspace

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
    """Thread-safe registry of sessions; ``factory`` builds each new session's service.
    ``workspace``: the registry to front (default: a new one of its own, without a cap on the
    number of sessions and without watchers)."""

    def __init__(
        self, factory: Callable[[], RagService] = RagService, *, workspace: Workspace | None = None
    ) -> None:
        self._workspace = (
            workspace
            if workspace is not None
            else Workspace(service_factory=factory, max_sessions=None)
        )

    @property
    def workspace(self) -> Workspace:
        return self._workspace

    def get_rag(self, session_id: str) -> RagService:
        """The session's service, created on first use (exactly once, even under contention)."""
        _check_session_id(session_id)
        return self._workspace.open_session(session_id).service

    def find(self, session_id: str) -> RagService | None:
        """The session's service if it exists; never creates one."""
        session = self._workspace.get(session_id)
        return None if session is None else session.service

    def remove_session(self, session_id: str) -> bool:
        """Clear and drop the session; False if there was none."""
        return self._workspace.close_session(session_id)

    def session_ids(self) -> list[str]:
        return sorted(self._workspace.session_ids())

    def __len__(self) -> int:
        return len(self._workspace.session_ids())

    def __contains__(self, session_id: object) -> bool:
        return isinstance(session_id, str) and self._workspace.get(session_id) is not None

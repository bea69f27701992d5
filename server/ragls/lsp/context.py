"""What the handlers need of the running server, as a protocol.

:mod:`ragls.lsp.lifecycle` and :mod:`ragls.lsp.methods` take a :class:`ServerContext` rather
than the server class, so that :mod:`ragls.lsp.server`, which registers them, is the only
module that knows pygls' ``LanguageServer`` subclass (no import goes back up to it).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from lsprotocol import types

from ragls.service.session.workspace import Workspace


class ServerContext(Protocol):
    """The running server as its handlers see it (``ragls.lsp.server.RaglsServer``)."""

    sessions: Workspace
    loop: asyncio.AbstractEventLoop | None
    supports_progress: bool
    supports_watched_files: bool
    watched_files_registered: bool
    pending_messages: list[str]
    folder_uris: list[str]
    rescan_task: asyncio.Task[None] | None

    @property
    def work_done_progress(self) -> Any: ...

    def client_register_capability_async(self, params: types.RegistrationParams) -> Any: ...

    def show(self, message: str, kind: types.MessageType = ...) -> None: ...

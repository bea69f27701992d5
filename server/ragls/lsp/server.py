"""``create_server()``: the pygls server and the registration of every handler (SPEC §9).

Handlers live in :mod:`ragls.lsp.lifecycle` (the LSP lifecycle) and :mod:`ragls.lsp.methods`
(the ``rag/*`` methods, one table); this module registers them. A custom method's adapter
structures its params into the method's typed class (:mod:`ragls.lsp.messages`, InvalidParams
naming the field) and translates service errors (:mod:`ragls.lsp.errors`): bad params are
InvalidParams (-32602); a cancelled run is RequestCancelled (-32800); a refused or failed run is
IndexFailed (-32002); ``rag/index`` with ``ifIdle`` while a run is going is IndexInProgress
(-32001). Threaded methods run in pygls' thread pool and index runs on the session's index
thread, so the event loop never waits and ``rag/status`` and ``$/cancelRequest`` are answered
while an index runs. Nothing a client sends can stop the process or drop an index.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, default_converter

from ragls import __version__
from ragls.errors import RaglsError
from ragls.lsp import lifecycle, symbols
from ragls.lsp.errors import translate
from ragls.lsp.guard import IGNORED_METHOD
from ragls.lsp.messages import structure
from ragls.lsp.methods import METHODS, Method
from ragls.lsp.results import to_json
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions
from ragls.service.status import IndexStatus
from ragls.watch.watcher import WorkspaceWatcher

log = logging.getLogger(__name__)

INDEX_UPDATED = "rag/indexUpdated"
MAX_NOTIFIED_PATHS = 100

LIFECYCLE = (
    (types.INITIALIZE, lifecycle.initialize),
    (types.INITIALIZED, lifecycle.initialized),
    (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, lifecycle.folders_changed),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, lifecycle.configuration_changed),
    (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, lifecycle.watched_files_changed),
    (types.SHUTDOWN, lifecycle.shutdown),
)

# Standard LSP requests answered from the sessions' indexes, in pygls' thread pool.
STANDARD_REQUESTS = ((types.WORKSPACE_SYMBOL, symbols.workspace_symbol),)


def handled_requests() -> frozenset[str]:
    """The request methods this server answers (what ragls.lsp.guard lets through)."""
    return frozenset(
        {
            types.INITIALIZE,
            types.SHUTDOWN,
            *(name for name, _ in STANDARD_REQUESTS),
            *(method.name for method in METHODS),
        }
    )


def _params_as_sent(message: dict[str, Any], cls: type[Any]) -> Any:
    """A custom method's message with its params kept as the JSON the client sent (members
    JSON-RPC does not define are left out, rather than fail the message unanswered)."""
    known = {field.name for field in attrs.fields(cls)}
    return cls(**{name: value for name, value in message.items() if name in known})


def plain_params_converter() -> Any:
    """pygls's converter, but a custom method's params stay plain JSON: pygls turned them into
    namedtuples with ``rename=True``, so a key that is not a Python identifier, is a keyword or
    starts with ``_`` (``source-url``, ``class``, ``_private`` in ``rag/addDocument``'s metadata)
    came back as ``_0``, ``_1``, and a key ``type_name`` was taken out."""
    converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(JsonRPCRequestMessage, _params_as_sent)
    converter.register_structure_hook(JsonRPCNotification, _params_as_sent)
    return converter


class RaglsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            name="ragls", version=__version__, converter_factory=plain_params_converter
        )
        self.sessions = Workspace(
            WorkspaceOptions(), self._committed, change_feed=WorkspaceWatcher, confined=True
        )
        self.loop: asyncio.AbstractEventLoop | None = None
        self.supports_progress = False
        self.supports_watched_files = False
        self.watched_files_registered = False
        self.pending_messages: list[str] = []
        self.folder_uris: list[str] = []
        self.rescan_task: asyncio.Task[None] | None = None

    def _committed(self, session: str, status: IndexStatus, changed: list[str] | None) -> None:
        payload: dict[str, Any] = {
            "session": session,
            "generation": status.generation,
            "fileCount": status.file_count,
            "chunkCount": status.chunk_count,
            "changedPaths": None if changed is None else changed[:MAX_NOTIFIED_PATHS],
            "changedPathCount": None if changed is None else len(changed),
        }
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.protocol.notify, INDEX_UPDATED, payload)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # A malformed message (bad JSON, a request pygls cannot structure) is the client's
        # mistake: one line in the log, no traceback, and the server goes on.
        if isinstance(error, JsonRpcException):
            return  # a documented error, already answered to the client
        log.warning("ignored a message it could not handle: %s: %s", type(error).__name__, error)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"ragls: {message}"))


def adapter(method: Method) -> Any:
    """The pygls handler of one custom method: raw params in, typed params to the method,
    service errors out as the documented JSON-RPC errors. The parameter is named ``ls`` so
    pygls passes the server."""
    if method.threaded:

        def call(ls: RaglsServer, raw: Any) -> Any:
            try:
                return to_json(method.handler(ls, structure(method.params, raw)))
            except RaglsError as error:
                raise translate(error) from error

        call.__name__ = method.handler.__name__
        return call

    async def call_async(ls: RaglsServer, raw: Any) -> Any:
        try:
            return to_json(await method.handler(ls, structure(method.params, raw)))
        except RaglsError as error:
            raise translate(error) from error

    call_async.__name__ = method.handler.__name__
    return call_async


def _ignore(ls: RaglsServer, params: Any) -> None:
    return None


def create_server() -> RaglsServer:
    server = RaglsServer()
    # What ragls.lsp.guard puts in place of a message it answered itself: nothing to do.
    server.feature(IGNORED_METHOD)(_ignore)
    for name, handler in LIFECYCLE:
        server.feature(name)(handler)
    for name, request in STANDARD_REQUESTS:
        server.feature(name)(server.thread()(request))
    for method in METHODS:
        handler = adapter(method)
        if method.threaded:
            handler = server.thread()(handler)
        server.feature(method.name)(handler)
    return server

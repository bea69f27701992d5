"""``create_server()``: the pygls server, its lifecycle handlers and its custom methods (SPEC §9).

Each handler is a thin adapter: typed params in (``ragls.lsp.messages``), one call into the
daemon or a session's service, JSON out (``ragls.service.wire``). Every handler that takes a lock
runs in pygls' thread pool (``@server.thread()``), index runs on the session's index thread, so
the event loop never waits and ``rag/status`` and ``$/cancelRequest`` are answered while an
index runs. Errors: bad params are InvalidParams
(-32602) naming the field; a cancelled run is RequestCancelled (-32800); a refused or failed run
is -32002 (IndexFailed); ``rag/index`` with ``ifIdle`` while a run is going is -32001
(IndexInProgress). Nothing a client sends can stop the process or drop an index.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
    JsonRpcServerError,
)
from pygls.lsp.server import LanguageServer

from ragls import __version__
from ragls.core.validation import MAX_QUERY_CHARS, MAX_TOP_K
from ragls.errors import IndexCancelledError, InvalidArgumentError, RaglsError
from ragls.lsp.messages import Params
from ragls.lsp.progress import ProgressReporter
from ragls.lsp.watcher import WorkspaceWatcher
from ragls.service import wire
from ragls.service.options import WorkspaceOptions, parse_options
from ragls.service.scheduler import IndexJob
from ragls.service.status import IndexStatus
from ragls.service.workspace import Workspace, WorkspaceSession, uri_to_path

log = logging.getLogger(__name__)

INDEX_IN_PROGRESS = -32001
INDEX_FAILED = -32002
INDEX_UPDATED = "rag/indexUpdated"
MAX_NOTIFIED_PATHS = 100

F = TypeVar("F", bound=Callable[..., Any])


class RaglsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(name="ragls", version=__version__)
        self.sessions = Workspace(WorkspaceOptions(), self._committed, change_feed=WorkspaceWatcher)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.supports_progress = False
        self.supports_watched_files = False
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


def server_error(message: str, code: int) -> JsonRpcException:
    return JsonRpcServerError(message, code)  # type: ignore[no-untyped-call]


def translate(error: BaseException) -> BaseException:
    """The JSON-RPC error protocol.md documents for a service error (others unchanged)."""
    if isinstance(error, JsonRpcException):
        return error
    if isinstance(error, InvalidArgumentError):
        return JsonRpcInvalidParams(str(error))
    if isinstance(error, IndexCancelledError):
        return JsonRpcRequestCancelled(str(error))
    if isinstance(error, RaglsError):
        return server_error(str(error), INDEX_FAILED)
    return error


def adapt_errors(handler: F) -> F:
    """Turn service errors into the JSON-RPC errors protocol.md documents."""

    @functools.wraps(handler)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except RaglsError as error:
            raise translate(error) from error

    return wrapper  # type: ignore[return-value]


def _session(ls: RaglsServer, params: Params) -> WorkspaceSession:
    return ls.sessions.resolve(params.optional_string("session"))


def _query(params: Params) -> tuple[str, int]:
    query = params.string("query", required=True)
    if len(query) > MAX_QUERY_CHARS:
        raise JsonRpcInvalidParams(f"query must be at most {MAX_QUERY_CHARS} characters")
    return query, params.integer("topK", default=5, low=1, high=MAX_TOP_K)


def _status(session: WorkspaceSession) -> dict[str, Any]:
    watcher = session.watcher
    extra = {
        "root": str(session.root) if session.root else None,
        "watcher": None
        if watcher is None
        else {"state": watcher.state, "watches": watcher.watch_count, "detail": watcher.detail},
        "pipeline": session.service.pipeline.name,
        "indexRuns": session.indexer.runs,
        "changedPathRuns": session.indexer.changed_runs,
    }
    return wire.status_json(session.id, session.service.get_status(), extra)


def create_server() -> RaglsServer:
    server = RaglsServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RaglsServer, params: types.InitializeParams) -> None:
        options, errors = parse_options(params.initialization_options)
        ls.sessions.options = options
        ls.pending_messages.extend(errors)
        capabilities = params.capabilities
        ls.supports_progress = bool(capabilities.window and capabilities.window.work_done_progress)
        watched = (
            capabilities.workspace.did_change_watched_files if capabilities.workspace else None
        )
        ls.supports_watched_files = bool(watched and watched.dynamic_registration)
        if params.workspace_folders:
            ls.folder_uris = [folder.uri for folder in params.workspace_folders]
        elif params.root_uri:
            ls.folder_uris = [params.root_uri]

    @server.feature(types.INITIALIZED)
    async def initialized(ls: RaglsServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        for message in ls.pending_messages:
            ls.show(f"invalid configuration, defaults used: {message}")
        ls.pending_messages.clear()
        for uri in ls.folder_uris:
            await open_folder(ls, uri)
        ls.rescan_task = asyncio.create_task(rescan_forever(ls))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(
        ls: RaglsServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        for folder in params.event.removed:
            await asyncio.to_thread(ls.sessions.close_session, folder.uri)
        for folder in params.event.added:
            await open_folder(ls, folder.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(
        ls: RaglsServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("ragls"), dict):
            settings = settings["ragls"]
        if settings is None:
            return
        options, errors = parse_options(settings, ls.sessions.options)
        if errors:
            ls.show("configuration not applied, the previous one stays: " + "; ".join(errors))
            return
        # Applying new limits waits for a running index run: never on the event loop.
        await asyncio.to_thread(ls.sessions.apply_options, options)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: RaglsServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            try:
                path = uri_to_path(change.uri)
            except InvalidArgumentError:
                continue
            for session in ls.sessions.sessions():
                if session.root is not None and path.is_relative_to(session.root):
                    session.indexer.add_changes({path.relative_to(session.root).as_posix()})

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RaglsServer, params: None) -> None:
        if ls.rescan_task is not None:
            ls.rescan_task.cancel()
        ls.sessions.stop()

    @server.feature("rag/search")
    @server.thread()
    @adapt_errors
    def search(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        query, top_k = _query(params)
        session = _session(ls, params)
        results = session.service.search(query, top_k)
        return {
            "session": session.id,
            "results": [wire.result_json(r) for r in results],
            "warnings": list(session.service.warnings()),
        }

    @server.feature("rag/buildContextPrompt")
    @server.thread()
    @adapt_errors
    def build_context_prompt(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        query, top_k = _query(params)
        session = _session(ls, params)
        return {
            "session": session.id,
            "prompt": session.service.build_context_prompt(query, top_k),
            "warnings": list(session.service.warnings()),
        }

    @server.feature("rag/index")
    async def index(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        prepared = adapt_errors(_prepare_index)(ls, raw)
        session, job, reporter = prepared
        ls.sessions.submit_index(session, job)
        try:
            status = await asyncio.wrap_future(job.future)
        except asyncio.CancelledError:
            job.cancel.set()  # $/cancelRequest: stop the run between files
            if reporter is not None:
                reporter.end("cancelled")
            raise
        except Exception as error:
            if reporter is not None:
                reporter.end("cancelled" if isinstance(error, IndexCancelledError) else "failed")
            raise translate(error) from error
        if reporter is not None:
            reporter.end(f"Indexed {status.file_count} files, {status.chunk_count} chunks")
        if session.root is not None and session.folder:
            await asyncio.to_thread(ls.sessions.start_watching, session)  # walks the directories
        return await asyncio.to_thread(_status, session)

    @server.feature("rag/status")
    @server.thread()
    @adapt_errors
    def status(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        return _status(_session(ls, Params(raw)))

    @server.feature("rag/addDocument")
    @server.thread()
    @adapt_errors
    def add_document(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        content = params.string("content", required=True)
        metadata = params.string_map("metadata")
        session = _session(ls, params)
        return {"session": session.id, "id": session.service.add_document(content, metadata)}

    @server.feature("rag/listDocuments")
    @server.thread()
    @adapt_errors
    def list_documents(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        session = _session(ls, Params(raw))
        documents = [wire.document_info_json(i) for i in session.service.list_documents()]
        return {"session": session.id, "documents": documents}

    @server.feature("rag/getDocument")
    @server.thread()
    @adapt_errors
    def get_document(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        document_id = params.string("id", required=True)
        session = _session(ls, params)
        document = session.service.get_document(document_id)
        found = None if document is None else wire.document_json(document)
        return {"session": session.id, "document": found}

    @server.feature("rag/removeDocument")
    @server.thread()
    @adapt_errors
    def remove_document(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        document_id = params.string("id", required=True)
        session = _session(ls, params)
        return {"session": session.id, "removed": session.service.remove_document(document_id)}

    @server.feature("rag/clear")
    @server.thread()
    @adapt_errors
    def clear(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        session = _session(ls, Params(raw))
        session.service.clear()
        return _status(session)

    @server.feature("rag/sessions")
    @server.thread()
    @adapt_errors
    def sessions(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        return {"sessions": [_status(session) for session in ls.sessions.sessions()]}

    @server.feature("rag/createSession")
    @server.thread()
    @adapt_errors
    def create_session(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        name = params.string("session", required=True)
        if not name.strip() or len(name) > 256:
            raise JsonRpcInvalidParams("session must be a non-blank name of at most 256 characters")
        return _status(ls.sessions.open_session(name, None, folder=False))

    @server.feature("rag/closeSession")
    @server.thread()
    @adapt_errors
    def close_session(ls: RaglsServer, raw: Any) -> dict[str, Any]:
        params = Params(raw)
        name = params.string("session", required=True)
        return {"session": name, "closed": ls.sessions.close_session(name)}

    return server


def _prepare_index(
    ls: RaglsServer, raw: Any
) -> tuple[WorkspaceSession, IndexJob, ProgressReporter | None]:
    params = Params(raw)
    session = _session(ls, params)
    path = params.optional_string("path")
    if path is None:
        if session.root is None:
            raise JsonRpcInvalidParams(f"path is required: session {session.id!r} has no folder")
        path = str(session.root)
    elif session.folder:
        raise JsonRpcInvalidParams("path cannot be given for a workspace-folder session")
    force = params.boolean("force")
    if params.boolean("ifIdle") and session.service.is_indexing():
        raise server_error("an index run is in progress for this session", INDEX_IN_PROGRESS)
    token = params.token("workDoneToken")
    job = IndexJob(path=path, force=force)
    reporter = None
    if token is not None and ls.loop is not None:
        reporter = ProgressReporter(ls, ls.loop, token, job.cancel)
        reporter.begin("ragls: indexing")
        job.progress = reporter
    return session, job, reporter


async def open_folder(ls: RaglsServer, uri: str) -> None:
    try:
        session = ls.sessions.open_folder(uri)
    except InvalidArgumentError as error:
        ls.show(f"workspace folder {uri} cannot be indexed: {error}")
        return
    if session.root is None or not session.root.is_dir():
        ls.show(f"workspace folder {uri} is not a directory", types.MessageType.Warning)
        return
    await asyncio.to_thread(ls.sessions.start_watching, session)  # walks the directories
    await register_watched_files_fallback(ls, session)
    if not ls.sessions.options.index_on_startup:
        return
    job = IndexJob(path=str(session.root))
    reporter = None
    if ls.supports_progress and ls.loop is not None:
        token = f"ragls-index-{uuid.uuid4().hex}"
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=5)
            reporter = ProgressReporter(ls, ls.loop, token, job.cancel)
            reporter.begin(f"ragls: indexing {session.root.name}")
            job.progress = reporter
        except Exception:  # the client refused or never answered: index without progress
            reporter = None
    ls.sessions.submit_index(session, job)

    def finished(future: Any) -> None:
        if reporter is None:
            return
        if future.cancelled() or future.exception() is not None:
            error = future.exception() if not future.cancelled() else None
            reporter.end("cancelled" if isinstance(error, IndexCancelledError) else "failed")
            if error is not None and not isinstance(error, IndexCancelledError) and ls.loop:
                ls.loop.call_soon_threadsafe(ls.show, f"indexing {uri} failed: {error}")
        else:
            status = future.result()
            reporter.end(f"Indexed {status.file_count} files, {status.chunk_count} chunks")

    job.future.add_done_callback(finished)


async def register_watched_files_fallback(ls: RaglsServer, session: WorkspaceSession) -> None:
    """When the watcher could not watch everything, ask the client to report file changes
    (``workspace/didChangeWatchedFiles``, registered dynamically) if it can; the periodic rescan
    covers the rest."""
    watcher = session.watcher
    if watcher is None or watcher.state == "watching" or not ls.supports_watched_files:
        return
    if getattr(ls, "watched_files_registered", False):
        return
    ls.watched_files_registered = True  # type: ignore[attr-defined]
    registration = types.Registration(
        id=f"ragls-watched-files-{uuid.uuid4().hex}",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
        ),
    )
    try:
        await asyncio.wait_for(
            ls.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            ),
            timeout=5,
        )
    except Exception as error:
        log.warning("the client did not accept file-change notifications: %s", error)


async def rescan_forever(ls: RaglsServer) -> None:
    while True:
        await asyncio.sleep(ls.sessions.options.rescan_interval_seconds)
        ls.sessions.rescan_unwatched()

"""The custom ``rag/*`` methods: one short function each, and the table that registers them.

Each function takes the server and its typed params (:mod:`ragls.lsp.messages`) and makes one
call into the workspace layer or a session's service; JSON results come from
:mod:`ragls.service.wire`. Errors are translated by the server's adapter
(:func:`ragls.lsp.server.translate`). ``threaded`` methods run in pygls' thread pool (they may
wait on a session lock); ``rag/index`` is a coroutine that awaits its run on the session's index
thread, so ``$/cancelRequest`` reaches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from ragls.errors import IndexCancelledError
from ragls.lsp.errors import INDEX_IN_PROGRESS, server_error, translate
from ragls.lsp.messages import (
    AddDocumentParams,
    DocumentParams,
    IndexParams,
    NamedSessionParams,
    QueryParams,
    SessionParams,
)
from ragls.lsp.progress import ProgressReporter
from ragls.service import wire
from ragls.service.scheduler import IndexJob
from ragls.service.workspace import WorkspaceSession

if TYPE_CHECKING:
    from ragls.lsp.server import RaglsServer

MAX_SESSION_NAME_CHARS = 256


def status_of(session: WorkspaceSession) -> dict[str, Any]:
    """``rag/status`` of one session: the service's status plus the daemon's view of it."""
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


def search(ls: RaglsServer, params: QueryParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    results = session.service.search(params.query, params.top_k)
    return {
        "session": session.id,
        "results": [wire.result_json(result) for result in results],
        "warnings": list(session.service.warnings()),
    }


def build_context_prompt(ls: RaglsServer, params: QueryParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    return {
        "session": session.id,
        "prompt": session.service.build_context_prompt(params.query, params.top_k),
        "warnings": list(session.service.warnings()),
    }


async def index(ls: RaglsServer, params: IndexParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    path = params.path
    if path is None:
        if session.root is None:
            raise JsonRpcInvalidParams(f"path is required: session {session.id!r} has no folder")
        path = str(session.root)
    elif session.folder:
        raise JsonRpcInvalidParams("path cannot be given for a workspace-folder session")
    if params.if_idle and session.service.is_indexing():
        raise server_error("an index run is in progress for this session", INDEX_IN_PROGRESS)
    job = IndexJob(path=path, force=params.force)
    reporter = None
    if params.work_done_token is not None and ls.loop is not None:
        reporter = ProgressReporter(ls, ls.loop, params.work_done_token, job.cancel)
        reporter.begin("ragls: indexing")
        job.progress = reporter
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
    return await asyncio.to_thread(status_of, session)


def status(ls: RaglsServer, params: SessionParams) -> dict[str, Any]:
    return status_of(ls.sessions.resolve(params.session))


def add_document(ls: RaglsServer, params: AddDocumentParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    document_id = session.service.add_document(params.content, params.metadata)
    return {"session": session.id, "id": document_id}


def list_documents(ls: RaglsServer, params: SessionParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    documents = [wire.document_info_json(info) for info in session.service.list_documents()]
    return {"session": session.id, "documents": documents}


def get_document(ls: RaglsServer, params: DocumentParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    document = session.service.get_document(params.id)
    found = None if document is None else wire.document_json(document)
    return {"session": session.id, "document": found}


def remove_document(ls: RaglsServer, params: DocumentParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    return {"session": session.id, "removed": session.service.remove_document(params.id)}


def clear(ls: RaglsServer, params: SessionParams) -> dict[str, Any]:
    session = ls.sessions.resolve(params.session)
    session.service.clear()
    return status_of(session)


def sessions(ls: RaglsServer, params: SessionParams) -> dict[str, Any]:
    return {"sessions": [status_of(session) for session in ls.sessions.sessions()]}


def create_session(ls: RaglsServer, params: NamedSessionParams) -> dict[str, Any]:
    name = params.session
    if not name.strip() or len(name) > MAX_SESSION_NAME_CHARS:
        raise JsonRpcInvalidParams(
            f"session must be a non-blank name of at most {MAX_SESSION_NAME_CHARS} characters"
        )
    return status_of(ls.sessions.open_session(name, None, folder=False))


def close_session(ls: RaglsServer, params: NamedSessionParams) -> dict[str, Any]:
    return {"session": params.session, "closed": ls.sessions.close_session(params.session)}


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    params: type
    handler: Callable[..., Any]
    threaded: bool = True  # False: a coroutine on the event loop


METHODS: tuple[Method, ...] = (
    Method("rag/search", QueryParams, search),
    Method("rag/buildContextPrompt", QueryParams, build_context_prompt),
    Method("rag/index", IndexParams, index, threaded=False),
    Method("rag/status", SessionParams, status),
    Method("rag/addDocument", AddDocumentParams, add_document),
    Method("rag/listDocuments", SessionParams, list_documents),
    Method("rag/getDocument", DocumentParams, get_document),
    Method("rag/removeDocument", DocumentParams, remove_document),
    Method("rag/clear", SessionParams, clear),
    Method("rag/sessions", SessionParams, sessions),
    Method("rag/createSession", NamedSessionParams, create_session),
    Method("rag/closeSession", NamedSessionParams, close_session),
)

"""The custom ``rag/*`` methods: one short function each, and the table that registers them.

Each function takes the server and its typed params (:mod:`ragls.lsp.messages`), makes one
call into the workspace layer or a session's service and returns a typed answer
(:mod:`ragls.lsp.results`), which the server's adapter unstructures to camelCase JSON; the
adapter also translates errors (:func:`ragls.lsp.errors.translate`). ``threaded`` methods run
in pygls' thread pool (they may wait on a session lock); ``rag/index`` is a coroutine that
awaits its run on the session's index thread, so ``$/cancelRequest`` reaches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from ragls.errors import IndexCancelledError
from ragls.lsp.context import ServerContext
from ragls.lsp.errors import INDEX_IN_PROGRESS, server_error, translate
from ragls.lsp.messages import (
    AddDocumentParams,
    DefinitionsParams,
    DocumentParams,
    ExplainParams,
    IndexParams,
    NamedSessionParams,
    QueryParams,
    ReferencesParams,
    SessionParams,
)
from ragls.lsp.progress import ProgressReporter
from ragls.lsp.results import (
    AddedAnswer,
    ClosedAnswer,
    DocumentAnswer,
    DocumentInfoView,
    DocumentsAnswer,
    DocumentView,
    ExplainAnswer,
    PartialView,
    PromptAnswer,
    RemovedAnswer,
    ResultView,
    SearchAnswer,
    SessionsAnswer,
    StatusAnswer,
    WatcherView,
)
from ragls.lsp.structure import definitions, references
from ragls.service import wire
from ragls.service.session.scheduler import IndexJob
from ragls.service.session.workspace import WorkspaceSession

MAX_SESSION_NAME_CHARS = 256


def status_of(session: WorkspaceSession) -> StatusAnswer:
    """``rag/status`` of one session: the service's status plus the daemon's view of it."""
    watcher = session.watcher
    return StatusAnswer.of(
        session.id,
        session.service.get_status(),
        root=str(session.root) if session.root else None,
        watcher=None
        if watcher is None
        else WatcherView(watcher.state, watcher.watch_count, watcher.detail),
        pipeline=session.service.pipeline.name,
        index_runs=session.indexer.runs,
        changed_path_runs=session.indexer.changed_runs,
        stale=session.stale,
        last_run=wire.run_json(session.service.last_report),
    )


def search(ls: ServerContext, params: QueryParams) -> SearchAnswer:
    session = ls.sessions.resolve(params.session)
    # Both before the search: a run committing meanwhile only makes the answer fresher (or
    # whole), so the flags may err on the side of caution, never the other way.
    stale, partial = session.stale, session.service.partial
    results = session.service.search(params.query, params.top_k)
    return SearchAnswer(
        session.id,
        [ResultView.of(result) for result in results],
        list(session.service.warnings()),
        session.service.generation,
        stale,
        partial is not None,
        PartialView.of(partial),
    )


def build_context_prompt(ls: ServerContext, params: QueryParams) -> PromptAnswer:
    session = ls.sessions.resolve(params.session)
    stale, partial = session.stale, session.service.partial
    prompt = session.service.build_context_prompt(params.query, params.top_k)
    warnings = list(session.service.warnings())
    return PromptAnswer(
        session.id,
        prompt,
        warnings,
        session.service.generation,
        stale,
        partial is not None,
        PartialView.of(partial),
    )


async def index(ls: ServerContext, params: IndexParams) -> StatusAnswer:
    session = ls.sessions.resolve(params.session)
    path = params.path
    if path is None:
        if session.root is None:
            raise JsonRpcInvalidParams(f"path is required: session {session.id!r} has no folder")
        path = str(session.root)
    elif session.folder:
        raise JsonRpcInvalidParams("path cannot be given for a workspace-folder session")
    elif "\x00" in path:
        raise JsonRpcInvalidParams("path holds a NUL character")
    else:
        ls.sessions.check_index_path(path)  # confinement: InvalidParams naming the setting
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


def status(ls: ServerContext, params: SessionParams) -> StatusAnswer:
    return status_of(ls.sessions.resolve(params.session))


def add_document(ls: ServerContext, params: AddDocumentParams) -> AddedAnswer:
    session = ls.sessions.resolve(params.session)
    return AddedAnswer(session.id, session.service.add_document(params.content, params.metadata))


def list_documents(ls: ServerContext, params: SessionParams) -> DocumentsAnswer:
    session = ls.sessions.resolve(params.session)
    infos = session.service.list_documents()
    return DocumentsAnswer(session.id, [DocumentInfoView.of(info) for info in infos])


def get_document(ls: ServerContext, params: DocumentParams) -> DocumentAnswer:
    session = ls.sessions.resolve(params.session)
    document = session.service.get_document(params.id)
    return DocumentAnswer(session.id, None if document is None else DocumentView.of(document))


def remove_document(ls: ServerContext, params: DocumentParams) -> RemovedAnswer:
    session = ls.sessions.resolve(params.session)
    return RemovedAnswer(session.id, session.service.remove_document(params.id))


def clear(ls: ServerContext, params: SessionParams) -> StatusAnswer:
    session = ls.sessions.resolve(params.session)
    session.service.clear()
    return status_of(session)


def explain_path(ls: ServerContext, params: ExplainParams) -> ExplainAnswer:
    session = ls.sessions.resolve(params.session)
    found = session.service.explain_path(params.path)
    return ExplainAnswer(
        session.id,
        found.path,
        found.indexed,
        found.chunks,
        found.reason,
        found.detail,
        found.format,
    )


def sessions(ls: ServerContext, params: SessionParams) -> SessionsAnswer:
    return SessionsAnswer([status_of(session) for session in ls.sessions.sessions()])


def create_session(ls: ServerContext, params: NamedSessionParams) -> StatusAnswer:
    name = params.session
    if not name.strip() or len(name) > MAX_SESSION_NAME_CHARS:
        raise JsonRpcInvalidParams(
            f"session must be a non-blank name of at most {MAX_SESSION_NAME_CHARS} characters"
        )
    return status_of(ls.sessions.open_session(name, None, folder=False))


def close_session(ls: ServerContext, params: NamedSessionParams) -> ClosedAnswer:
    return ClosedAnswer(params.session, ls.sessions.close_session(params.session))


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
    Method("rag/explainPath", ExplainParams, explain_path),
    Method("rag/sessions", SessionParams, sessions),
    Method("rag/createSession", NamedSessionParams, create_session),
    Method("rag/closeSession", NamedSessionParams, close_session),
    Method("rag/definitions", DefinitionsParams, definitions),
    Method("rag/references", ReferencesParams, references),
)

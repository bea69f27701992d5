"""The LSP lifecycle: initialize, folders, configuration, client file events, shutdown (SPEC §9).

Module-level handlers registered by :func:`ragls.lsp.server.create_server`. Work that waits on a
session (closing one, applying limits, walking a tree for watches) goes to a thread; the event
loop never blocks.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from lsprotocol import types

from ragls.errors import IndexCancelledError, InvalidArgumentError
from ragls.lsp.context import ServerContext
from ragls.lsp.progress import ProgressReporter
from ragls.service.session.folders import uri_to_path
from ragls.service.session.scheduler import IndexJob
from ragls.service.session.workspace import WorkspaceSession
from ragls.service.settings.options import parse_options

log = logging.getLogger(__name__)


def initialize(ls: ServerContext, params: types.InitializeParams) -> None:
    options, errors = parse_options(params.initialization_options)
    ls.sessions.options = options
    ls.pending_messages.extend(errors)
    capabilities = params.capabilities
    ls.supports_progress = bool(capabilities.window and capabilities.window.work_done_progress)
    watched = capabilities.workspace.did_change_watched_files if capabilities.workspace else None
    ls.supports_watched_files = bool(watched and watched.dynamic_registration)
    if params.workspace_folders:
        ls.folder_uris = [folder.uri for folder in params.workspace_folders]
    elif params.root_uri:
        ls.folder_uris = [params.root_uri]


async def initialized(ls: ServerContext, params: types.InitializedParams) -> None:
    ls.loop = asyncio.get_running_loop()
    for message in ls.pending_messages:
        ls.show(f"invalid configuration, defaults used: {message}")
    ls.pending_messages.clear()
    for uri in ls.folder_uris:
        await open_folder(ls, uri)
    ls.rescan_task = asyncio.create_task(rescan_forever(ls))


async def folders_changed(ls: ServerContext, params: types.DidChangeWorkspaceFoldersParams) -> None:
    for folder in params.event.removed:
        await asyncio.to_thread(ls.sessions.close_session, folder.uri)
    for folder in params.event.added:
        await open_folder(ls, folder.uri)


async def configuration_changed(
    ls: ServerContext, params: types.DidChangeConfigurationParams
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


def watched_files_changed(ls: ServerContext, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        try:
            path = uri_to_path(change.uri)
        except InvalidArgumentError:
            continue
        for session in ls.sessions.sessions():
            if session.root is not None and path.is_relative_to(session.root):
                session.indexer.add_changes({path.relative_to(session.root).as_posix()})


async def shutdown(ls: ServerContext, params: None) -> None:
    """Stop watching and indexing, and save what is unsaved (SPEC §11): seconds on a large
    workspace, so off the event loop; the answer comes once it is done."""
    if ls.rescan_task is not None:
        ls.rescan_task.cancel()
    await asyncio.to_thread(ls.sessions.stop)


async def open_folder(ls: ServerContext, uri: str) -> None:
    """Open a workspace folder's session: watch it, then index it with progress. A folder that
    cannot be opened is reported and skipped; the others open all the same."""
    try:
        await _open_folder(ls, uri)
    except InvalidArgumentError as error:
        ls.show(f"workspace folder {uri} cannot be indexed: {error}")
    except Exception as error:  # a defect must cost this folder, not the folders after it
        log.exception("opening workspace folder %s failed", uri)
        ls.show(f"workspace folder {uri} cannot be indexed: {error!r}")


async def _open_folder(ls: ServerContext, uri: str) -> None:
    session = ls.sessions.open_folder(uri)
    if session.root is None or not session.root.is_dir():
        ls.show(f"workspace folder {uri} is not a directory", types.MessageType.Warning)
        return
    await asyncio.to_thread(ls.sessions.start_watching, session)  # walks the directories
    await register_watched_files_fallback(ls, session)
    if not ls.sessions.options.index_on_startup:
        return
    job = IndexJob(path=str(session.root))
    reporter = await _startup_progress(ls, session, job)
    ls.sessions.submit_index(session, job)
    job.future.add_done_callback(lambda future: _startup_finished(ls, uri, reporter, future))


async def _startup_progress(
    ls: ServerContext, session: WorkspaceSession, job: IndexJob
) -> ProgressReporter | None:
    if not ls.supports_progress or ls.loop is None or session.root is None:
        return None
    token = f"ragls-index-{uuid.uuid4().hex}"
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=5)
    except Exception:  # the client refused or never answered: index without progress
        return None
    reporter = ProgressReporter(ls, ls.loop, token, job.cancel)
    reporter.begin(f"ragls: indexing {session.root.name}")
    job.progress = reporter
    return reporter


def _startup_finished(
    ls: ServerContext, uri: str, reporter: ProgressReporter | None, future: Any
) -> None:
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


async def register_watched_files_fallback(ls: ServerContext, session: WorkspaceSession) -> None:
    """When the watcher could not watch everything, ask the client to report file changes
    (``workspace/didChangeWatchedFiles``, registered dynamically) if it can; the periodic rescan
    covers the rest."""
    watcher = session.watcher
    if watcher is None or watcher.state == "watching" or not ls.supports_watched_files:
        return
    if ls.watched_files_registered:
        return
    ls.watched_files_registered = True
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


async def rescan_forever(ls: ServerContext) -> None:
    while True:
        await asyncio.sleep(ls.sessions.options.rescan_interval_seconds)
        ls.sessions.rescan_unwatched()

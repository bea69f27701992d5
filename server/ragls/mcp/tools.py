"""What each MCP tool does, over the workspace layer (SPEC §12); no MCP SDK here.

Every tool takes plain values and returns a JSON-able dict (the tool's structured output) or
raises :class:`ToolFailure` with a message an assistant can act on: which root exists, what
range a number must be in, why a path is refused, how far the first index run has got.

Decisions written down here:

* Roots are fixed at start (the command line); a tool names one by its path (absolute, or the
  folder's name when that is unambiguous) or takes the first. Nothing outside the roots is read:
  ``read_span`` takes a path relative to a root, refuses ``..``, absolute paths and every path
  indexing would not admit (ignored, secret, default-skipped, binary, too large), with the rule
  that refuses it, then opens the file beneath the root's descriptor without following a link
  anywhere on the way (:mod:`ragls.service.guards.beneath`), so no check-then-read race leads out.
* ``search_code`` with ``path_glob`` (gitignore-style, relative to the root) or ``language``
  filters the ranked results of the session's pipeline: it asks for up to 100 candidates, keeps
  those that match, in rank order, and returns the first ``top_k``.
* Searching while a root's first index is still being built, with no stored generation to answer
  from, answers from the run's latest partial generation (``ragls.ingest.partial``: the files
  read so far, the first about a second into the run) with ``partial: true``, ``progress``
  (files read of files to read) and a ``note`` saying that the answer is incomplete. Only
  before the first of them (or after a first run that failed) is it an error that says how far
  the run has got. Once a generation exists (loaded from the store or built), answers come with
  ``stale: true`` while changes are pending.
* ``build_context`` cuts the fenced prompt to ``max_chars`` on evidence boundaries (never inside
  the fence); ``kept`` says how many evidence blocks fit.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pathspec

from ragls.core.prompt import render_context_prompt_within
from ragls.errors import InvalidArgumentError, RaglsError
from ragls.ingest.explain import explain_path
from ragls.ingest.extract import ExtractionError
from ragls.ingest.ingestion import FileIngestionService
from ragls.mcp.names import unescaped
from ragls.service import wire
from ragls.service.guards.beneath import Refused, read_beneath
from ragls.service.session.scheduler import IndexJob
from ragls.service.session.workspace import Workspace, WorkspaceSession
from ragls.service.status import IndexProgress

MAX_TOP_K = 50
FILTER_CANDIDATES = 100
SNIPPET_LINES = 12
SNIPPET_CHARS = 800
MAX_SPAN_LINES = 2_000
MAX_SPAN_CHARS = 200_000
DEFAULT_CONTEXT_CHARS = 24_000
REINDEX_WAIT_SECONDS = 600.0
FIRST_ANSWER_WAIT_SECONDS = 20.0


class ToolFailure(Exception):
    """A tool call that cannot be answered; the message is shown to the assistant."""


@dataclass
class ServedRoot:
    path: Path
    session: WorkspaceSession
    progress: IndexProgress | None = None
    started: bool = False


class RaglsTools:
    """The tools over one :class:`Workspace` and its fixed roots."""

    def __init__(self, workspace: Workspace, roots: list[Path]) -> None:
        if not roots:
            raise InvalidArgumentError("at least one root is needed")
        self.workspace = workspace
        self._roots: dict[Path, ServedRoot] = {}
        for root in roots:
            session = workspace.open_folder(root.as_uri())
            self._roots[root] = ServedRoot(root, session)
        self._ingestion = FileIngestionService(workspace.options.limits)

    # -- start-up ------------------------------------------------------------------------------

    def start(self) -> None:
        """Index every root (from its stored generation when there is one) and watch it."""
        for root in self._roots.values():
            self._submit(root)
            self.workspace.start_watching(root.session)

    def _submit(self, root: ServedRoot, *, force: bool = False) -> IndexJob:
        def progress(tick: IndexProgress) -> None:
            root.progress = tick

        job = IndexJob(path=str(root.path), force=force, progress=progress)
        root.started = True
        self.workspace.submit_index(root.session, job)
        return job

    def close(self) -> None:
        self.workspace.stop()

    # -- roots ---------------------------------------------------------------------------------

    def _root(self, name: str | None) -> ServedRoot:
        if name is None or name == "":
            return next(iter(self._roots.values()))
        candidate = Path(name).expanduser()
        if candidate.is_absolute() and "\x00" not in name:
            try:
                found = self._roots.get(candidate.resolve())
            except (OSError, RuntimeError):  # a name too long, a symbolic-link loop
                found = None
            if found is not None:
                return found
        else:
            named = [root for root in self._roots.values() if root.path.name == name]
            if len(named) == 1:
                return named[0]
        known = ", ".join(str(path) for path in self._roots)
        raise ToolFailure(f"unknown root {name!r}; this server serves: {known}")

    def root_named(self, name: str | None) -> ServedRoot:
        """The root a tool call names (see :meth:`_root`), for the tools of other modules."""
        return self._root(name)

    def answering(self, root: ServedRoot) -> WorkspaceSession:
        """The root's session once it has a generation to answer from (see :meth:`_answering`)."""
        return self._answering(root)

    def _answering(self, root: ServedRoot) -> WorkspaceSession:
        """The session, once it has a generation to answer from (a whole or a partial one):
        while the first run is under way (loading the stored generation takes a second or so, a
        cold run commits its first partial generation about a second in), wait up to
        FIRST_ANSWER_WAIT_SECONDS for it, then say how far it got."""
        session = root.session
        deadline = time.monotonic() + FIRST_ANSWER_WAIT_SECONDS
        while (
            session.service.generation == 0
            and root.started
            and session.indexer.pending
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        if session.service.generation == 0:
            if not session.service.is_indexing() and session.service.get_status().last_error:
                error = session.service.get_status().last_error
                raise ToolFailure(f"indexing {root.path} failed: {error}; call reindex to retry")
            tick = root.progress
            done = f": {tick.indexed_files}/{tick.total_files} files" if tick else ""
            raise ToolFailure(
                f"the index of {root.path} is still being built{done}; try again in a moment "
                "(index_status shows the progress)"
            )
        return session

    # -- tools ---------------------------------------------------------------------------------

    def search_code(
        self,
        query: str,
        top_k: int = 10,
        root: str | None = None,
        path_glob: str | None = None,
        language: str | None = None,
    ) -> dict[str, Any]:
        chosen = self._root(root)
        if not query.strip():
            raise ToolFailure("query is empty; describe the code to find in words or identifiers")
        _check_range("top_k", top_k, 1, MAX_TOP_K)
        session = self._answering(chosen)
        partial = session.service.partial  # before the search: see ragls.lsp.methods.search
        spec = None
        if path_glob:
            try:
                spec = pathspec.GitIgnoreSpec.from_lines([path_glob])
            except (ValueError, re.error) as error:  # re.error: "[z-a]", a bad range
                raise ToolFailure(f"path_glob {path_glob!r} is not a valid glob: {error}") from None
        filtered = spec is not None or bool(language)
        try:
            results = session.service.search(query, FILTER_CANDIDATES if filtered else top_k)
        except InvalidArgumentError as error:
            raise ToolFailure(str(error)) from None
        hits = []
        for result in results:
            metadata = result.metadata
            file = metadata.get("file", "")
            if spec is not None and not (file and spec.match_file(file)):
                continue
            if language and metadata.get("language", "").lower() != language.lower():
                continue
            hits.append(_hit(result.id, result.score, result.content, metadata))
            if len(hits) == top_k:
                break
        return {
            "root": str(chosen.path),
            "results": hits,
            "generation": session.service.generation,
            "stale": session.stale,
            "warnings": list(session.service.warnings()),
        } | partial_fields(chosen.path, partial)

    def build_context(
        self, query: str, top_k: int = 8, max_chars: int | None = None, root: str | None = None
    ) -> dict[str, Any]:
        chosen = self._root(root)
        if not query.strip():
            raise ToolFailure("query is empty; pass the question the context is for")
        _check_range("top_k", top_k, 1, MAX_TOP_K)
        budget = DEFAULT_CONTEXT_CHARS if max_chars is None else max_chars
        _check_range("max_chars", budget, 200, 1_000_000)
        session = self._answering(chosen)
        partial = session.service.partial
        results = session.service.search(query, top_k)
        prompt, kept = render_context_prompt_within(query, results, budget)
        return {
            "root": str(chosen.path),
            "prompt": prompt,
            "kept": kept,
            "found": len(results),
            "generation": session.service.generation,
            "stale": session.stale,
        } | partial_fields(chosen.path, partial)

    def read_span(
        self, path: str, start_line: int = 1, end_line: int | None = None, root: str | None = None
    ) -> dict[str, Any]:
        chosen = self._root(root)
        relative = _relative(path)
        if not os.path.lexists(chosen.path / relative) and unescaped(path) != path:
            original = _relative(unescaped(path))  # a name that is not UTF-8, as shown
            if os.path.lexists(chosen.path / original):
                relative = original
        config = self.workspace.source_config(chosen.path)
        found = explain_path(self._ingestion, config, relative)
        if not found.admitted:
            detail = f" ({found.detail})" if found.detail else ""
            raise ToolFailure(
                f"{path}: refused, {found.reason}{detail}; only indexed files are readable"
            )
        _check_range("start_line", start_line, 1, 10_000_000)
        last = start_line + MAX_SPAN_LINES - 1 if end_line is None else end_line
        _check_range("end_line", last, start_line, start_line + MAX_SPAN_LINES - 1)
        try:
            # Opened beneath the root's descriptor, no link followed on the way: a folder
            # swapped for a link after the checks above cannot lead outside the root.
            data = read_beneath(chosen.path, relative, self._ingestion.limits.max_file_bytes)
        except Refused as error:
            raise ToolFailure(
                f"{path}: refused, {error}; only indexed files are readable"
            ) from None
        except OSError as error:
            raise ToolFailure(f"{path}: cannot be read: {error.strerror}") from None
        detected = self._ingestion.detect(config, relative, data)
        if detected is None:
            raise ToolFailure(f"{path}: refused, binary; only indexed files are readable")
        try:
            # The text as the index holds it: secrets masked, lines numbered as chunks are.
            text = self._ingestion.readable_text(config, relative, data, detected)
        except ExtractionError as error:
            raise ToolFailure(f"{path}: cannot be read: {error}") from None
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()  # the newline that ends the last line starts no line of its own
        chosen_lines = lines[start_line - 1 : last]
        content = "\n".join(chosen_lines)
        cut = len(content) > MAX_SPAN_CHARS
        return {
            "root": str(chosen.path),
            "path": relative,
            "start_line": start_line,
            "end_line": start_line + len(chosen_lines) - 1,
            "total_lines": len(lines),
            "content": content[:MAX_SPAN_CHARS],
            "truncated": cut,
        }

    def index_status(self, root: str | None = None) -> dict[str, Any]:
        chosen = self._root(root)
        session = chosen.session
        status = session.service.get_status()
        tick = chosen.progress if status.indexing else None
        return {
            "root": str(chosen.path),
            "files": status.file_count,
            "chunks": status.chunk_count,
            "generation": status.generation,
            "indexing": status.indexing,
            "progress": None
            if tick is None
            else {"indexed_files": tick.indexed_files, "total_files": tick.total_files},
            "partial": status.partial is not None,
            "stale": session.stale,
            "last_index_time": None
            if status.last_index_time is None
            else status.last_index_time.isoformat(timespec="seconds"),
            "pipeline": session.service.pipeline.name,
            "skipped": dict(status.skipped),
            "redacted": dict(status.redacted),
            "windowed_languages": dict(status.windowed_languages),
            "symbols": {
                "definitions": status.symbols.definitions,
                "references": status.symbols.references,
            },
            "errors": list(status.errors),
            "last_error": status.last_error,
            "warnings": list(status.warnings),
            "hints": list(status.hints),
            "watcher": None if session.watcher is None else session.watcher.state,
            "cache": _snake_keys(wire.cache_json(status.persistence)),
            "last_run": _snake_keys(wire.run_json(session.service.last_report)),
        }

    def list_roots(self) -> dict[str, Any]:
        roots = []
        for root in self._roots.values():
            status = root.session.service.get_status()
            roots.append(
                {
                    "root": str(root.path),
                    "name": root.path.name,
                    "files": status.file_count,
                    "chunks": status.chunk_count,
                    "generation": status.generation,
                    "indexing": status.indexing,
                    "partial": status.partial is not None,
                    "stale": root.session.stale,
                }
            )
        return {"roots": roots}

    def reindex(self, root: str | None = None, wait: bool = False) -> dict[str, Any]:
        """A full run through the fingerprint path (changed files only are re-read)."""
        chosen = self._root(root)
        job = self._submit(chosen)
        if not wait:
            return {"root": str(chosen.path), "started": True, "done": False}
        try:
            job.future.result(timeout=REINDEX_WAIT_SECONDS)
        except TimeoutError:
            raise ToolFailure(
                f"reindexing {chosen.path} is still running; index_status shows it"
            ) from None
        except RaglsError as error:
            raise ToolFailure(f"reindexing {chosen.path} failed: {error}") from None
        return {"root": str(chosen.path), "started": True, "done": True} | {
            "status": self.index_status(str(chosen.path))
        }

    def add_document(
        self, content: str, metadata: dict[str, str] | None = None, root: str | None = None
    ) -> dict[str, Any]:
        chosen = self._root(root)
        try:
            document_id = chosen.session.service.add_document(content, metadata)
        except InvalidArgumentError as error:
            raise ToolFailure(str(error)) from None
        return {"root": str(chosen.path), "id": document_id}

    def remove_document(self, document_id: str, root: str | None = None) -> dict[str, Any]:
        chosen = self._root(root)
        removed = chosen.session.service.remove_document(document_id)
        return {"root": str(chosen.path), "id": document_id, "removed": removed}


def partial_fields(root: Path, partial: IndexProgress | None) -> dict[str, Any]:
    """What a search answer says of a partial generation: the flag, how far the run had got,
    and a note an assistant reads before trusting an empty or thin answer."""
    if partial is None:
        return {"partial": False}
    done = f"{partial.indexed_files:,}/{partial.total_files:,}"
    return {
        "partial": True,
        "progress": {"indexed_files": partial.indexed_files, "total_files": partial.total_files},
        "note": (
            f"partial answer: the first index of {root} is still being built ({done} files "
            "read); what the other files hold is missing, so ask again when index_status "
            "says it is done before concluding that something does not exist"
        ),
    }


def _snake_keys(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A wire view with this server's snake_case keys (``bytesOnDisk`` -> ``bytes_on_disk``)."""
    if view is None:
        return None
    return {re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower(): value for key, value in view.items()}


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ToolFailure(f"{name} must be an integer from {low} to {high}, got {value!r}")


def _relative(path: str) -> str:
    """``path`` as a clean relative POSIX path, or a refusal naming the problem."""
    if not path:
        raise ToolFailure("path is empty; pass a file path relative to the root")
    if "\x00" in path:
        raise ToolFailure("path holds a NUL character; pass a file path relative to the root")
    if (
        path.startswith(("/", "\\"))
        or Path(path).is_absolute()
        or (len(path) > 1 and path[1] == ":")
    ):
        raise ToolFailure(f"{path}: refused, pass a path relative to the root, not an absolute one")
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if ".." in parts:
        raise ToolFailure(f"{path}: refused, '..' may not leave the root")
    clean = "/".join(part for part in parts if part != ".")
    if not clean:
        raise ToolFailure(f"{path}: refused, it names the root itself; pass a file")
    return clean


def _hit(document_id: str, score: float, content: str, metadata: Any) -> dict[str, Any]:
    lines = content.strip("\n").split("\n")
    snippet = "\n".join(lines[:SNIPPET_LINES])[:SNIPPET_CHARS]
    start = metadata.get("start_line")
    end = metadata.get("end_line")
    return {
        "id": document_id,
        "path": metadata.get("file"),
        "start_line": int(start) if start and start.isdigit() else None,
        "end_line": int(end) if end and end.isdigit() else None,
        "kind": metadata.get("kind"),
        "symbol": metadata.get("symbol"),
        "language": metadata.get("language"),
        "score": score,
        "snippet": snippet,
    }

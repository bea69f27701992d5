"""The MCP server: the tools of :mod:`ragls.mcp.tools` registered with the official SDK.

Each tool has a description an assistant can act on, an input schema with bounds (pydantic
``Field`` constraints become JSON Schema ``minimum``/``maximum``/``maxLength``), structured
output (the tool's dict) and a readable text rendering of it. A :class:`ToolFailure` becomes an
MCP tool error (``isError: true``) carrying its message; a bug in a tool becomes the SDK's
generic tool error, never a crash of the server. Blocking work (searching, reading, waiting
for a run) runs in a worker thread, off the server's event loop. Every answer and error is
made wire-safe (:mod:`ragls.mcp.names`: a file name that is not UTF-8 as ``\\xNN``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from ragls.core.validation import MAX_QUERY_CHARS
from ragls.mcp.names import shown, wire_safe
from ragls.mcp.structure_tools import MAX_FOCUS_FILES, StructureTools
from ragls.mcp.tools import MAX_TOP_K, RaglsTools, ToolFailure
from ragls.service.structure import (
    MAX_DEFINITIONS,
    MAX_MAP_CHARS,
    MAX_OUTLINE_FILES,
    MAX_REFERENCES,
    MIN_MAP_CHARS,
)

INSTRUCTIONS = (
    "ragls indexes the workspace roots listed by list_roots (source split into symbols, "
    "identifiers split into their parts) and keeps the index fresh as files change. Use "
    "search_code to find where something is implemented (words or identifiers), read_span to "
    "read the lines of a hit, build_context for a fenced, injection-safe context block to quote "
    "to a model. For structure: repo_map for the shape of a repository (its most central "
    "definitions), outline for a file's or folder's definitions, find_symbol for where a name "
    "is defined, find_references for where a name is used (name-based: no type resolution). "
    "Answers carry the index generation and stale=true while changes are pending."
)

Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="what to find")]
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description="how many results (1-50)")]
Name = Annotated[
    str, Field(min_length=1, max_length=1_000, description="an identifier, as written in code")
]
Root = Annotated[
    str | None,
    Field(description="a root from list_roots (its path or folder name); default: the first"),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


async def _call(action: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        answer = await asyncio.to_thread(action)
    except ToolFailure as failure:
        raise ToolError(shown(str(failure))) from None
    return wire_safe(answer)  # type: ignore[no-any-return]  # a name that is not UTF-8


def create_mcp_server(tools: RaglsTools, *, allow_writes: bool = False) -> MCPServer:
    server = MCPServer("ragls", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    @server.tool(
        description="Search the workspace's code and docs. Returns ranked hits with path, "
        "start_line, end_line, kind, symbol, language, score and a snippet, plus the index "
        "generation and stale. path_glob (gitignore-style, e.g. 'src/**/*.py') and language "
        "(e.g. 'python') narrow the hits.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def search_code(
        query: Query,
        top_k: TopK = 10,
        root: Root = None,
        path_glob: Annotated[str | None, Field(max_length=1_000)] = None,
        language: Annotated[str | None, Field(max_length=40)] = None,
    ) -> dict[str, Any]:
        return await _call(lambda: tools.search_code(query, top_k, root, path_glob, language))

    @server.tool(
        description="A context block for a model: the top results wrapped in the "
        "<tnsai-memory> fence (every document's text escaped so it cannot break out), then "
        "the query. Cut to max_chars on whole evidence blocks; kept says how many fit.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def build_context(
        query: Query,
        top_k: TopK = 8,
        max_chars: Annotated[int | None, Field(ge=200, le=1_000_000)] = None,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: tools.build_context(query, top_k, max_chars, root))

    @server.tool(
        description="Read lines start_line..end_line (1-based, inclusive; at most 2,000) of a "
        "file below a root. path is relative to the root; only files the index admits are "
        "readable ('..', absolute paths, symbolic links, ignored and secret files are refused).",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def read_span(
        path: Annotated[str, Field(min_length=1, max_length=4_096)],
        start_line: Annotated[int, Field(ge=1)] = 1,
        end_line: Annotated[int | None, Field(ge=1)] = None,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: tools.read_span(path, start_line, end_line, root))

    @server.tool(
        description="The index of a root: files, chunks, generation, whether it is indexing "
        "(with progress) or stale, skipped files by reason, errors, the stored index on disk.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def index_status(root: Root = None) -> dict[str, Any]:
        return await _call(lambda: tools.index_status(root))

    @server.tool(
        description="The workspace roots this server serves, with their index sizes.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def list_roots() -> dict[str, Any]:
        return await _call(tools.list_roots)

    @server.tool(
        description="Re-index a root now (only changed files are read again). wait=true "
        "returns when the run is done, with the new status.",
        annotations=ToolAnnotations(
            read_only_hint=False, idempotent_hint=True, open_world_hint=False
        ),
        structured_output=True,
    )
    async def reindex(root: Root = None, wait: bool = False) -> dict[str, Any]:
        return await _call(lambda: tools.reindex(root, wait))

    _register_structure_tools(server, StructureTools(tools))

    if allow_writes:

        @server.tool(
            description="Add a text document to a root's searchable corpus (kept with the "
            "index, not written to the workspace). Returns its id.",
            structured_output=True,
        )
        async def add_document(
            content: Annotated[str, Field(min_length=1, max_length=1_000_000)],
            metadata: dict[str, str] | None = None,
            root: Root = None,
        ) -> dict[str, Any]:
            return await _call(lambda: tools.add_document(content, metadata, root))

        @server.tool(
            description="Remove a document added with add_document.",
            structured_output=True,
        )
        async def remove_document(
            id: Annotated[str, Field(min_length=1, max_length=1_000)], root: Root = None
        ) -> dict[str, Any]:
            return await _call(lambda: tools.remove_document(id, root))

    return server


def _register_structure_tools(server: MCPServer, structure: StructureTools) -> None:
    @server.tool(
        description="Where a name is defined: definitions (functions, classes, methods, types...) "
        "of every indexed language, each with path, kind, container, start_line/end_line "
        "(1-based, for read_span), its signature line and doc lines (the comment above or the "
        "docstring). match: 'exact' (default, case-sensitive), 'glob' (e.g. 'parse_*', "
        "case-insensitive) or 'fuzzy' (ranked: exact > prefix > word part > substring > "
        "letters in order). Name-based: no type resolution.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def find_symbol(
        name: Name,
        match: Literal["exact", "glob", "fuzzy"] = "exact",
        limit: Annotated[int, Field(ge=1, le=MAX_DEFINITIONS)] = 20,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: structure.find_symbol(name, match, limit, root))

    @server.tool(
        description="Where a name is used: every reference to the identifier (calls, type "
        "uses, ...), grouped by file (files outside tests first), each with line, column, kind, "
        "the enclosing definition and the line's text; plus the name's definitions. "
        "Name-based, no type resolution: every use of an identifier spelled this way, "
        "whatever object it belongs to. total counts all; truncated says limit cut some.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def find_references(
        name: Name,
        limit: Annotated[int, Field(ge=1, le=MAX_REFERENCES)] = 100,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: structure.find_references(name, limit, root))

    @server.tool(
        description="The definitions of a file, or of every file below a folder ('.' for the "
        "whole root), nested by container (methods inside classes), each with kind, "
        "start_line/end_line (1-based) and signature line. path is relative to the root.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def outline(
        path: Annotated[str, Field(min_length=1, max_length=4_096)] = ".",
        limit: Annotated[int, Field(ge=1, le=MAX_OUTLINE_FILES)] = 50,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: structure.outline(path, limit, root))

    @server.tool(
        description="A map of the repository within max_chars: its most central definitions' "
        "signature lines, grouped by file, like aider's repository map. Files are linked by "
        "the names they use (A uses a name B defines: A -> B) and ranked by PageRank, "
        "personalised by query (files whose code matches it) and focus_files (paths you are "
        "working on). The cheapest way to see the shape of a codebase before reading it.",
        annotations=READ_ONLY,
        structured_output=True,
    )
    async def repo_map(
        max_chars: Annotated[int, Field(ge=MIN_MAP_CHARS, le=MAX_MAP_CHARS)] = 4_000,
        query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS)] = None,
        focus_files: Annotated[list[str] | None, Field(max_length=MAX_FOCUS_FILES)] = None,
        root: Root = None,
    ) -> dict[str, Any]:
        return await _call(lambda: structure.repo_map(max_chars, query, focus_files, root))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragls")
    except PackageNotFoundError:  # pragma: no cover - a source checkout without install
        return "0"


__all__ = ["create_mcp_server"]

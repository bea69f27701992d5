"""MCP over stdio, where every request gets an answer (SPEC §12).

The SDK's stdio reader validates each line with pydantic's JSON parser; a line it cannot take
goes to the server as an exception, and no answer is ever written, so the client waits for
ever. Two kinds of line met that fate:

* a string holding a lone surrogate escape (``"caf\\udce9.py"``): valid JSON, which Python's
  parser reads, but pydantic's refuses. It is how a file name that is not UTF-8 is spelled when
  decoded as the walk does, so a client may well send one back. Such a line is read with
  Python's parser and each such string written as the tools show names (``caf\\xe9.py``,
  :mod:`ragls.mcp.names`), which the tools accept back;
* a JSON object that is not a valid JSON-RPC message but says it is a request (an ``id`` and a
  ``method``): it is answered with InvalidRequest (-32600) naming the problem.

Anything else (a line that is not JSON at all) goes on to the server as before. The SDK is
pinned: this uses its lower-level server (``MCPServer._lowlevel_server``) with the SDK's own
stdio transport, so the claim on the process's file descriptors stays the SDK's.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp import types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ragls.mcp.names import wire_safe

INVALID_REQUEST = -32600


async def run_stdio(server: Any) -> None:
    """Serve ``server`` (an ``MCPServer``) over stdin and stdout until stdin ends."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        sender, receiver = create_context_streams[SessionMessage | Exception](0)

        async def repair() -> None:
            async with sender:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        fixed = repaired(item)
                        if isinstance(fixed, types.JSONRPCError):
                            await write_stream.send(SessionMessage(fixed))
                            continue
                        if fixed is not None:
                            item = fixed
                    await sender.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(repair)
            await lowlevel.run(receiver, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def repaired(error: Exception) -> SessionMessage | types.JSONRPCError | None:
    """The message a line the SDK refused should have been, or the error to answer it with;
    None when there is nothing to do (the line is not JSON, or names no request)."""
    if not isinstance(error, ValidationError):
        return None
    value = _message_of(error)
    if value is None:
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_python(wire_safe(value), by_name=False)
    except ValidationError as invalid:
        request_id = value.get("id")
        if "method" not in value or isinstance(request_id, bool):
            return None
        if not isinstance(request_id, int | str):
            return None
        problem = invalid.errors()[0]
        where = ".".join(str(part) for part in problem.get("loc", ()))
        detail = f"{problem.get('msg', 'invalid')}" + (f" at {where}" if where else "")
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,
            error=types.ErrorData(code=INVALID_REQUEST, message=f"not a valid request: {detail}"),
        )
    return SessionMessage(message)


def _message_of(error: ValidationError) -> dict[str, Any] | None:
    """The JSON object a refused line held: the line itself when pydantic could not parse it
    (a lone surrogate), else the parsed object its errors quote."""
    for problem in error.errors():
        found = problem.get("input")
        if isinstance(found, dict) and ("method" in found or "id" in found):
            return found
    for problem in error.errors():
        found = problem.get("input")
        if problem.get("type") == "json_invalid" and isinstance(found, str):
            try:
                value = json.loads(found)
            except (ValueError, RecursionError):
                return None
            return value if isinstance(value, dict) else None
    return None

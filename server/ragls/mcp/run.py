"""Running ``ragls mcp``: the roots' sessions, their watchers, and a transport (SPEC §12).

stdio is the default (stdout carries the protocol only; logs go to stderr). ``--http
HOST:PORT`` serves Streamable HTTP at ``/mcp`` instead: on a loopback address unless
``--allow-remote`` is given, and every request must carry ``Authorization: Bearer TOKEN`` with
the token generated at start, printed to stderr and written to ``<cache root>/mcp-token`` (mode
0600); a request without it gets 401. Connections are bounded in number and in idle time
(:mod:`ragls.mcp.connections`). Sessions are the
workspace layer's folder sessions, so the index starts from the stored generation (SPEC §11)
and a workspace whose index a daemon already writes is read, not indexed a second time.
"""

from __future__ import annotations

import hmac
import secrets
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import anyio

from ragls.mcp.roots import chosen_roots
from ragls.mcp.server import create_mcp_server
from ragls.mcp.stdio import run_stdio
from ragls.mcp.tools import RaglsTools
from ragls.service.guards.access import listen_address, write_token
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions
from ragls.store.paths import default_cache_root
from ragls.watch.watcher import WorkspaceWatcher

MCP_TOKEN_FILE = "mcp-token"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def parse_http(text: str, allow_remote: bool = False) -> tuple[str, int]:
    return listen_address(text, "--http", allow_remote)


def build_tools(roots: list[str], *, cache: bool, watch: bool = True) -> RaglsTools:
    options = WorkspaceOptions(persistence_enabled=cache, watch=watch)
    workspace = Workspace(options, change_feed=WorkspaceWatcher)
    return RaglsTools(workspace, chosen_roots(roots, Path.cwd()))


def serve(
    roots: list[str],
    *,
    http: str | None,
    allow_writes: bool,
    cache: bool,
    allow_remote: bool = False,
) -> int:
    address = parse_http(http, allow_remote) if http is not None else None
    tools = build_tools(roots, cache=cache)
    server = create_mcp_server(tools, allow_writes=allow_writes)
    tools.start()
    try:
        if address is None:
            anyio.run(run_stdio, server)
        else:
            _serve_http(server.streamable_http_app(host=address[0]), *address)
    finally:
        tools.close()
    return 0


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        from starlette.requests import ClientDisconnect

        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:  # the client left, or its request was timed out: no traceback
            return


def _serve_http(app: ASGIApp, host: str, port: int) -> None:
    import uvicorn

    from ragls.mcp.connections import ACCEPT_BACKLOG, BoundedH11Protocol

    token = secrets.token_urlsafe(32)
    where = write_token(default_cache_root(), token, MCP_TOKEN_FILE)
    print(f"ragls mcp: http://{host}:{port}/mcp", file=sys.stderr)
    print(f"ragls mcp: token {token} (also in {where})", file=sys.stderr, flush=True)
    uvicorn.run(
        BearerToken(app, token),
        host=host,
        port=port,
        log_level="warning",
        http=BoundedH11Protocol,  # idle connections closed, open ones bounded
        backlog=ACCEPT_BACKLOG,
    )

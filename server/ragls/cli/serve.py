"""``ragls serve``: the daemon, JSON-RPC over stdio (or one TCP client, for debugging)."""

from __future__ import annotations

import argparse
import sys

from ragls.cli.common import (
    positive,
)


def command_serve(args: argparse.Namespace) -> int:
    from ragls.lsp.framing import FRAMING_EXIT_CODE, FramedInput
    from ragls.lsp.guard import ProtocolGuard
    from ragls.lsp.logs import configure  # the daemon's imports, only when serving
    from ragls.lsp.output import SerialOutput
    from ragls.lsp.server import create_server, handled_requests

    server = create_server()
    configure(server, args.log_level)
    if args.tcp is None:
        stdout = SerialOutput(sys.stdout.buffer)
        guard = ProtocolGuard(stdout, handled_requests())
        framed = FramedInput(sys.stdin.buffer, args.max_frame_mib * 1024 * 1024, guard)
        try:
            server.start_io(stdin=framed, stdout=stdout)  # type: ignore[arg-type]
        finally:  # a client gone without shutdown: still save what is unsaved (SPEC §11)
            server.sessions.stop()
        return 0 if framed.error is None else FRAMING_EXIT_CODE
    from ragls.lsp.tcp import TOKEN_EXIT_CODE, TokenCheck, accept_one, parse_address
    from ragls.store.paths import default_cache_root

    host, port = parse_address(args.tcp, args.allow_remote)
    connection, token = accept_one(host, port, default_cache_root())
    output = SerialOutput(connection.makefile("wb"))
    check = TokenCheck(token, ProtocolGuard(output, handled_requests()))
    framed = FramedInput(connection.makefile("rb"), args.max_frame_mib * 1024 * 1024, check)
    try:
        server.start_io(stdin=framed, stdout=output)  # type: ignore[arg-type]
    finally:
        server.sessions.stop()
        connection.close()
    if check.refused is not None:
        return TOKEN_EXIT_CODE
    return 0 if framed.error is None else FRAMING_EXIT_CODE


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the daemon (JSON-RPC over stdio)")
    serve.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="serve one client over TCP instead of stdio (debugging): loopback unless "
        "--allow-remote; the client must send the token printed at start in "
        "initializationOptions.token",
    )
    serve.add_argument(
        "--allow-remote", action="store_true", help="let --tcp listen on a non-loopback address"
    )
    serve.add_argument(
        "--stdio",
        action="store_true",
        help="speak over stdio (the default; accepted for clients that add it)",
    )
    serve.add_argument(
        "--max-frame-mib",
        type=positive,
        default=64,
        help="refuse larger JSON-RPC frames (and exit 3 so the client restarts the server)",
    )
    serve.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="stderr log level (default warning)",
    )
    serve.set_defaults(run=command_serve)

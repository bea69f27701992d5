"""``ragls mcp``: the workspace index served to AI assistants (Model Context Protocol)."""

from __future__ import annotations

import argparse
import sys


def command_mcp(args: argparse.Namespace) -> int:
    try:
        from ragls.mcp.run import serve
    except ImportError as error:
        if error.name is None or not error.name.startswith("mcp"):
            raise
        print(
            "ragls: `ragls mcp` needs the MCP SDK: pip install 'ragls[mcp]' (or mcp==2.3.0)",
            file=sys.stderr,
        )
        return 2
    return serve(
        args.root or [],
        http=args.http,
        allow_writes=args.allow_writes,
        cache=not args.no_cache,
        allow_remote=args.allow_remote,
    )


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve the workspace index to AI assistants (Model Context Protocol, stdio)",
        description="Tools: search_code, build_context, read_span, index_status, list_roots, "
        "reindex (and add_document, remove_document with --allow-writes). Nothing outside the "
        "roots is read. See docs/mcp.md.",
    )
    mcp.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        help="a folder to serve (repeatable; default: the project around the current directory)",
    )
    mcp.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP at /mcp instead of stdio (127.0.0.1 unless a host is given; "
        "a bearer token printed to stderr is required)",
    )
    mcp.add_argument(
        "--allow-writes", action="store_true", help="enable add_document and remove_document"
    )
    mcp.add_argument(
        "--allow-remote", action="store_true", help="let --http listen on a non-loopback address"
    )
    mcp.add_argument("--no-cache", action="store_true", help="neither load nor store the index")
    mcp.set_defaults(run=command_mcp)

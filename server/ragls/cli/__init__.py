"""The ``ragls`` command line: one module per subcommand (``index``, ``search``, ``context``,
``files``, ``explain``, ``eval``, ``cache``, ``serve``, ``mcp``), what they share in
:mod:`ragls.cli.common`.

Each command builds a fresh in-memory session, indexes PATH with the workspace pipeline (SPEC
§10; ``--pipeline seed`` for the seed's) and answers. Progress, summaries and warnings go to
stderr; stdout carries only the answer (results, the fenced prompt, JSON with ``--json``, one
JSON line per query with ``--queries``, or the file list), so the output can be piped. JSON
uses the wire form of protocol.md (``startLine`` as a number). Exit codes: 0 on success, 1 when
some lines of a ``--queries`` file were invalid (each answered with an ``error``), 2 for bad
arguments or a refused source, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from ragls import __version__
from ragls.cli import cache, context, evaluate, explain, files, index, mcp, search, serve
from ragls.errors import RaglsError
from ragls.store.redaction import RedactingFilter, redact


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragls", description="Workspace retrieval for editors.")
    parser.add_argument("--version", action="version", version=f"ragls {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in (index, search, context, serve, files, explain, evaluate, cache, mcp):
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if logging.lastResort is not None:  # what prints the CLI's warnings: no DSN password
        logging.lastResort.addFilter(RedactingFilter())
    try:
        return int(args.run(args))
    except RaglsError as error:
        print(f"ragls: {redact(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ragls: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `ragls files . | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())

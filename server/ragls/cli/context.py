"""``ragls context PATH QUERY``: the fenced context prompt for a model (SPEC §6)."""

from __future__ import annotations

import argparse

from ragls.cli.common import (
    Session,
    source,
    warn,
)


def command_context(args: argparse.Namespace) -> int:
    with Session(args) as session:
        warn(session.service)
        print(session.service.build_context_prompt(args.query, args.k))
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    context = commands.add_parser("context", help="print the fenced context prompt for a query")
    source(context)
    context.add_argument("query")
    context.add_argument("-k", type=int, default=5, help="how many results (1-100, default 5)")
    context.set_defaults(run=command_context)

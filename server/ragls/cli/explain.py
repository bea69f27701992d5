"""``ragls explain PATH FILE...``: whether each path would be indexed, and if not why."""

from __future__ import annotations

import argparse

from ragls.cli.common import (
    folder_config,
    shown,
    source,
)
from ragls.ingest.explain import explain_path
from ragls.ingest.ingestion import FileIngestionService


def command_explain(args: argparse.Namespace) -> int:
    config = folder_config(args)
    if config is None:
        return 2
    ingestion = FileIngestionService()
    for target in args.targets:
        found = explain_path(ingestion, config, target)
        label = shown(found.path)
        if found.admitted:
            chunking = f", {found.chunking}" if found.chunking else ""
            print(f"{label}: would be indexed ({found.format or 'directory'}){chunking}")
        else:
            detail = f": {found.detail}" if found.detail else ""
            print(f"{label}: not indexed, {found.reason}{detail}")
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = commands.add_parser(
        "explain",
        help="say whether paths would be indexed, and if not why (the rule that refuses them)",
    )
    source(explain, searched=False)
    explain.add_argument("targets", nargs="+", metavar="FILE", help="paths below PATH")
    explain.set_defaults(run=command_explain)

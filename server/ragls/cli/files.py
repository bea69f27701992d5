"""``ragls files PATH``: the files an index run would hold."""

from __future__ import annotations

import argparse
import sys

from ragls.cli.common import (
    folder_config,
    printable,
    source,
)
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.parallel import default_workers, process_all
from ragls.ingest.pipeline import Status


def command_files(args: argparse.Namespace) -> int:
    """The files an index run of PATH would hold: each admitted file goes through the index
    run's own per-file pipeline (read, format, extraction, chunk cap), so a file skipped as
    binary or failing to extract is not listed. Nothing is stored."""
    config = folder_config(args)
    if config is None:
        return 2
    ingestion = FileIngestionService()
    discovery = ingestion.discover(config)
    work = [(candidate, None) for candidate in discovery.candidates]
    results = process_all(ingestion, config, work, default_workers())
    try:
        listed = sorted(done.path for done in results if done.status is Status.CHUNKED)
    finally:
        results.close()
    for path in listed:
        print(path)
    skipped = len(discovery.skipped) + len(work) - len(listed)
    print(
        printable(
            f"ragls: {len(listed)} would be indexed, {skipped} skipped "
            f"(`ragls index {args.path} -v` says why)"
        ),
        file=sys.stderr,
    )
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    files = commands.add_parser(
        "files",
        help="list the files an index run would hold (each is read and chunked as index does; "
        "nothing is stored)",
    )
    source(files, searched=False)
    files.set_defaults(run=command_files)

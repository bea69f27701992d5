"""``ragls index PATH``: index a folder (or publish it to a team store) and print a summary."""

from __future__ import annotations

import argparse
import sys
import time

from ragls.cli.common import (
    Session,
    printable,
    source,
    summary,
)
from ragls.errors import InvalidArgumentError
from ragls.service.persistence.link import Persistence
from ragls.service.persistence.stores import (
    DEFAULT_KEEP,
    Publication,
)

PUBLISH_WAIT_SECONDS = 900.0  # how long a publish waits for another publisher of its commit


def command_index(args: argparse.Namespace) -> int:
    publication = None
    if args.store is not None or args.publish:
        if args.keep is not None and args.keep < 0:
            raise InvalidArgumentError(f"--keep must be 0 (keep all) or more, got {args.keep}")
        keep = DEFAULT_KEEP if args.keep is None else (args.keep or None)
        publication = Publication(args.repository, args.ref, keep, args.database_search)
    elif args.repository or args.ref or args.keep is not None or args.database_search:
        raise InvalidArgumentError(
            "--repository, --ref, --keep and --database-search need --store or --publish"
        )
    with Session(args, publication) as session:
        # Stored (or published) before the summary is printed, so that what it says of the
        # cache is true.
        code = _publish(session) if publication is not None else _save(session)
        _report_index(session, args)
        return code


def _save(session: Session) -> int:
    """Write the generation now rather than when the session closes (the same single write);
    a store that cannot be written is said in the summary, as the daemon's status says it."""
    persistence = session.service.persistence
    if persistence is not None:
        persistence.flush()
    return 0


def _publish(session: Session) -> int:
    """Write the generation under the checkout's commit now (even when nothing changed since
    the ancestor it started from: that commit must be findable) and say where it went."""
    persistence = session.service.persistence
    if persistence is None:
        raise InvalidArgumentError("publishing needs persistence")
    _wait_for_the_writer_lock(persistence)
    persistence.changed()
    if not persistence.flush():
        stored = persistence.status()
        print(f"ragls: publishing failed: {stored.detail or stored.state}", file=sys.stderr)
        return 1
    stored = persistence.status()
    print(f"published generation {stored.stored_generation} to {stored.location}", file=sys.stderr)
    return 0


def _wait_for_the_writer_lock(persistence: Persistence) -> None:
    """Two CI jobs publishing the same commit take turns: wait (at most PUBLISH_WAIT_SECONDS)
    while another process holds the key's writer lock, instead of failing the second job."""
    deadline = time.monotonic() + PUBLISH_WAIT_SECONDS
    told = False
    while not persistence.become_writer():
        if persistence.state != "reader" or time.monotonic() > deadline:
            return  # the flush that follows reports why
        if not told:
            minutes = int(PUBLISH_WAIT_SECONDS // 60)
            print(
                f"ragls: waiting up to {minutes} min for the writer lock of "
                f"{persistence.store.location}: {persistence.detail}",
                file=sys.stderr,
            )
            told = True
        time.sleep(0.5)


def _report_index(session: Session, args: argparse.Namespace) -> int:
    service = session.service
    print(summary(service.get_status(), session.seconds), file=sys.stderr)
    report = service.last_report
    if args.verbose and report is not None:
        for item in report.skipped:
            detail = f" ({item.detail})" if item.detail else ""
            print(printable(f"skipped {item.reason.value}: {item.path}{detail}"), file=sys.stderr)
        for error in report.errors:
            print(printable(f"error: {error}"), file=sys.stderr)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    index = commands.add_parser("index", help="index a folder and print a summary")
    source(index)
    index.add_argument("-v", "--verbose", action="store_true", help="list skipped files")
    index.add_argument(
        "--publish",
        action="store_true",
        help="publish to the team store named by $RAGLS_STORE_FILE or $RAGLS_STORE, as --store "
        "URI does (the DSN stays off the command line)",
    )
    index.add_argument("--repository", help="publishing: under this name (default: the git remote)")
    index.add_argument("--ref", help="publishing: under this ref (default: HEAD)")
    index.add_argument(
        "--database-search",
        action="store_true",
        help="publishing: also write BM25 search tables, for ragls search --in-database",
    )
    index.add_argument(
        "--keep",
        type=int,
        metavar="N",
        help=f"publishing: keep the newest N published commits of the repository (default "
        f"{DEFAULT_KEEP}; 0 keeps all)",
    )
    index.set_defaults(run=command_index)

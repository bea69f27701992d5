"""``ragls search PATH QUERY``: the ranked chunks (``--queries`` for many, ``--in-database``
for BM25 inside a team store)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ragls.cli.batch import answer_queries
from ragls.cli.common import (
    Session,
    indexed_line,
    print_ranked,
    source,
    warn,
    warnings,
)
from ragls.errors import InvalidArgumentError
from ragls.service import wire
from ragls.service.persistence.stores import (
    check_store,
    database_search_store,
    store_target,
)


def command_search(args: argparse.Namespace) -> int:
    if (args.query is None) == (args.queries is None):
        print("ragls: search needs either QUERY or --queries FILE, not both", file=sys.stderr)
        return 2
    if args.queries is not None and args.in_database:
        raise InvalidArgumentError("--in-database answers one QUERY, not --queries")
    if args.queries is not None:
        return _search_batch(args)
    if args.in_database:
        return _search_in_database(args)
    with Session(args) as session:
        return _answer_search(session, args)


def _answer_search(session: Session, args: argparse.Namespace) -> int:
    service = session.service
    warn(service)
    results = service.search(args.query, args.k)
    if args.json:
        answer = {
            "results": wire.ranked_json(results),
            "warnings": warnings(service),
            "generation": service.generation,
            "stale": False,  # the command reconciled with the files before it searched
        }
        print(json.dumps(answer, indent=2))
        return 0
    print(indexed_line(session), file=sys.stderr)
    print_ranked(results, args.lines)
    return 0


def _search_in_database(args: argparse.Namespace) -> int:
    """BM25 (SPEC §3) in the team store over the commit's published search tables: nothing
    is indexed or loaded here, and local edits are not seen (docs/storage.md)."""
    target = store_target(None if args.store is None else check_store(args.store))
    store = database_search_store(target, Path(args.path).expanduser().resolve())
    started = time.perf_counter()
    results = store.search(args.query, args.k)
    seconds = time.perf_counter() - started
    if args.json:
        answer = {"results": wire.ranked_json(results), "ref": store.loaded_ref}
        print(json.dumps(answer, indent=2))
        return 0
    shown = (store.loaded_ref or "")[:12]
    print(f"BM25 in {store.location} (published for {shown}) in {seconds:.3f}s", file=sys.stderr)
    print_ranked(results, args.lines)
    return 0


def _search_batch(args: argparse.Namespace) -> int:
    try:
        lines = Path(args.queries).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        print(f"ragls: cannot read --queries {args.queries}: {error}", file=sys.stderr)
        return 2
    with Session(args) as session:
        print(indexed_line(session), file=sys.stderr)
        warn(session.service)
        failed = answer_queries(session.service, lines, args.k, sys.stdout, sys.stderr)
    return 1 if failed else 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    search = commands.add_parser("search", help="index a folder and search it")
    source(search)
    search.add_argument("query", nargs="?", help="the query (or --queries)")
    search.add_argument(
        "--queries",
        metavar="FILE",
        help='a JSON-lines file of {"id", "query", "topK"?}: index once, one JSON line each',
    )
    search.add_argument("-k", type=int, default=5, help="how many results (1-100, default 5)")
    search.add_argument("--json", action="store_true", help="print results as JSON")
    search.add_argument("--lines", type=int, default=3, help="content lines shown per result")
    search.add_argument(
        "--in-database",
        action="store_true",
        help="rank with BM25 inside the team store (published with --database-search) instead "
        "of loading the index: for indexes too large for this machine; local edits unseen",
    )
    search.set_defaults(run=command_search)

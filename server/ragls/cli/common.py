"""What every command shares: the session over PATH, its options, and how answers and
summaries are printed (stdout carries only the answer; the rest goes to stderr)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from ragls.cli.progress import IndexProgressDisplay
from ragls.core.documents import SearchResult
from ragls.errors import InvalidArgumentError
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.service.persistence.stores import (
    Publication,
    check_store,
)
from ragls.service.pipelines import PIPELINES, WORKSPACE
from ragls.service.rag_service import RagService
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions
from ragls.service.status import IndexStatus

CLI_SESSION = "cli"


class Session:
    """The CLI's one session of a workspace, built as the daemon builds its sessions: started
    from the stored index of PATH (SPEC §11) unless ``--no-cache``, reconciled with the files,
    and saved when the command is done (after its answer is printed)."""

    def __init__(self, args: argparse.Namespace, publication: Publication | None = None) -> None:
        if (args.store is not None or getattr(args, "publish", False)) and args.no_cache:
            raise InvalidArgumentError("--store and --publish contradict --no-cache")
        options = WorkspaceOptions(
            include=tuple(args.include or ()),
            exclude=tuple(args.exclude or ()),
            pipeline=args.pipeline,
            watch=False,
            persistence_enabled=not args.no_cache,
            persistence_store=None if args.store is None else check_store(args.store),
            publication=publication,
        )
        # One run, searched only once it is done: partial generations would cost time for no one.
        self.workspace = Workspace(options, partial_commits=False)
        root = Path(args.path).expanduser()
        self.service = self.workspace.open_session(
            CLI_SESSION, root if root.is_dir() else None
        ).service
        display = IndexProgressDisplay(sys.stderr, enabled=not getattr(args, "json", False))
        started = time.perf_counter()
        try:
            self.status = self.service.index_directory(
                args.path, display, **self.workspace.index_arguments()
            )
        finally:
            display.close()
        # A semantic pipeline answers once every chunk has its vector (embedded in the
        # background, stored with the generation when the queue drains).
        self.service.wait_for_embeddings()
        self.seconds = time.perf_counter() - started

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()
        self.workspace.stop()


# C0 controls but tab, DEL, C1 controls, and the bidirectional overrides and isolates: what a
# terminal obeys rather than shows.
_UNSHOWN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with what a terminal would act on (an escape sequence, a carriage return, a
    right-to-left override) written as ``\\xNN`` / ``\\uNNNN``: file names and contents come
    from the repository, and a cloned one must not be able to rewrite ragls's report."""
    if _UNSHOWN.search(text) is None:
        return text
    return _UNSHOWN.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def summary(status: IndexStatus, seconds: float) -> str:
    rows = [
        ("path", printable(status.indexed_path or "")),
        ("files", str(status.file_count)),
        ("chunks", str(status.chunk_count)),
        ("seconds", f"{seconds:.2f}"),
    ]
    rows += [(f"skipped: {reason}", str(count)) for reason, count in status.skipped.items()]
    rows += [(f"redacted: {rule}", str(count)) for rule, count in status.redacted.items()]
    rows += [
        (f"no grammar: {language}", f"{count} files chunked as line windows")
        for language, count in status.windowed_languages.items()
    ]
    symbols = status.symbols
    rows += [("symbols", f"{symbols.definitions} definitions, {symbols.references} references")]
    rows += [("errors", str(len(status.errors)))] if status.errors else []
    rows += [("warning", warning) for warning in status.warnings]
    rows += [("note", hint) for hint in status.hints]
    stored = status.persistence
    if stored is not None:
        loaded = stored.loaded_generation
        rows += [("cache", f"{stored.state}: {stored.location}")]
        rows += (
            [("cache: loaded", f"generation {loaded} in {stored.load_seconds:.2f}s")]
            if loaded is not None and stored.load_seconds is not None
            else []
        )
        rows += [("cache: note", stored.detail)] if stored.detail else []
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows)


def location(result: SearchResult) -> str:
    metadata = result.metadata
    file = metadata.get("file")
    if file is None:
        return result.id
    return f"{file}:{metadata.get('start_line', '1')}-{metadata.get('end_line', '')}".rstrip("-")


def warnings(service: RagService) -> list[str]:
    """What makes this answer incomplete (BM25's coverage) and what went wrong with the
    stored index (a cache folder that cannot be written, a stored generation not used), each
    naming its cause."""
    persistence = service.persistence
    stored = () if persistence is None else persistence.warnings()
    return [*service.warnings(), *stored]


def warn(service: RagService) -> None:
    for warning in warnings(service):
        print(f"ragls: warning: {warning}", file=sys.stderr)


def print_ranked(results: list[SearchResult], lines: int) -> None:
    if not results:
        print("no results", file=sys.stderr)
    for rank, result in enumerate(results, 1):
        symbol = result.metadata.get("symbol", "")
        kind = result.metadata.get("kind", "")
        label = f"  {kind} {symbol}".rstrip() if symbol else ""
        print(printable(f"{rank:>2}. {location(result)}{label}  (score {result.score:.4f})"))
        for line in result.content.strip("\n").split("\n")[:lines]:
            print(f"      {printable(line[:110])}")


def indexed_line(session: Session) -> str:
    status = session.status
    line = (
        f"indexed {status.file_count} files, {status.chunk_count} chunks in {session.seconds:.2f}s"
    )
    stored = status.persistence
    report = session.service.last_report
    if stored is not None and stored.loaded_generation is not None and report is not None:
        line += f" (from the stored index; {report.files_read} files re-read)"
    return line


def source(command: argparse.ArgumentParser, *, searched: bool = True) -> None:
    """The arguments every command over a folder takes."""
    command.add_argument("path", help="the folder to index")
    command.add_argument("--include", action="append", metavar="GLOB", help="only these")
    command.add_argument("--exclude", action="append", metavar="GLOB", help="not these")
    if not searched:
        return
    command.add_argument(
        "--store",
        metavar="URI",
        help="a team index in PostgreSQL (postgresql://...; default $RAGLS_STORE_FILE's first "
        "line, else $RAGLS_STORE, else the embedded cache): index publishes to it, search and "
        "context consume it (docs/storage.md)",
    )
    command.add_argument(
        "--no-cache",
        action="store_true",
        help="neither load nor store the folder's index (a cold, in-memory run)",
    )
    command.add_argument(
        "--pipeline",
        default=WORKSPACE.name,
        choices=sorted(PIPELINES),
        help="retrieval pipeline (default workspace; seed = the seed's BM25 + TF-IDF)",
    )


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def folder_config(args: argparse.Namespace) -> KnowledgeSourceConfig | None:
    """The source PATH and its globs name, or None (reported) if PATH is not a directory."""
    root = Path(args.path).resolve()
    if not root.is_dir():
        print(f"ragls: {args.path} is not a directory", file=sys.stderr)
        return None
    return KnowledgeSourceConfig(root, tuple(args.include or ()), tuple(args.exclude or ()))


def shown(path: str) -> str:
    """A path as one printable line: quoted like a JSON string if it holds control characters."""
    return json.dumps(path) if any(ord(c) < 32 or ord(c) == 127 for c in path) else path

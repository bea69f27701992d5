"""The ``ragls`` command line: ``index``, ``search``, ``context``, ``files`` and ``eval``.

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
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragls import __version__
from ragls.cli_batch import answer_queries
from ragls.cli_progress import IndexProgressDisplay
from ragls.core.documents import SearchResult
from ragls.errors import InvalidArgumentError, RaglsError
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.explain import explain_path
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.parallel import default_workers, process_all
from ragls.ingest.pipeline import Status
from ragls.service import wire
from ragls.service.options import WorkspaceOptions
from ragls.service.persistence import Persistence
from ragls.service.pipelines import PIPELINES, WORKSPACE
from ragls.service.rag_service import RagService
from ragls.service.status import IndexStatus
from ragls.service.stores import (
    DEFAULT_KEEP,
    Publication,
    check_store,
    database_search_store,
    store_target,
)
from ragls.service.workspace import Workspace
from ragls.store.redaction import RedactingFilter, redact

CLI_SESSION = "cli"
PUBLISH_WAIT_SECONDS = 900.0  # how long a publish waits for another publisher of its commit


class _Session:
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

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()
        self.workspace.stop()


def _summary(status: IndexStatus, seconds: float) -> str:
    rows = [
        ("path", status.indexed_path or ""),
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


def _location(result: SearchResult) -> str:
    metadata = result.metadata
    file = metadata.get("file")
    if file is None:
        return result.id
    return f"{file}:{metadata.get('start_line', '1')}-{metadata.get('end_line', '')}".rstrip("-")


def _warnings(service: RagService) -> list[str]:
    """What makes this answer incomplete (BM25's coverage) and what went wrong with the
    stored index (a cache folder that cannot be written, a stored generation not used), each
    naming its cause."""
    persistence = service.persistence
    stored = () if persistence is None else persistence.warnings()
    return [*service.warnings(), *stored]


def _warn(service: RagService) -> None:
    for warning in _warnings(service):
        print(f"ragls: warning: {warning}", file=sys.stderr)


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
    with _Session(args, publication) as session:
        # Stored (or published) before the summary is printed, so that what it says of the
        # cache is true.
        code = _publish(session) if publication is not None else _save(session)
        _report_index(session, args)
        return code


def _save(session: _Session) -> int:
    """Write the generation now rather than when the session closes (the same single write);
    a store that cannot be written is said in the summary, as the daemon's status says it."""
    persistence = session.service.persistence
    if persistence is not None:
        persistence.flush()
    return 0


def _publish(session: _Session) -> int:
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


def _report_index(session: _Session, args: argparse.Namespace) -> int:
    service = session.service
    print(_summary(service.get_status(), session.seconds), file=sys.stderr)
    report = service.last_report
    if args.verbose and report is not None:
        for item in report.skipped:
            detail = f" ({item.detail})" if item.detail else ""
            print(f"skipped {item.reason.value}: {item.path}{detail}", file=sys.stderr)
        for error in report.errors:
            print(f"error: {error}", file=sys.stderr)
    return 0


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
    with _Session(args) as session:
        return _answer_search(session, args)


def _answer_search(session: _Session, args: argparse.Namespace) -> int:
    service = session.service
    _warn(service)
    results = service.search(args.query, args.k)
    if args.json:
        answer = {
            "results": wire.ranked_json(results),
            "warnings": _warnings(service),
            "generation": service.generation,
            "stale": False,  # the command reconciled with the files before it searched
        }
        print(json.dumps(answer, indent=2))
        return 0
    print(_indexed_line(session), file=sys.stderr)
    _print_ranked(results, args.lines)
    return 0


def _print_ranked(results: list[SearchResult], lines: int) -> None:
    if not results:
        print("no results", file=sys.stderr)
    for rank, result in enumerate(results, 1):
        symbol = result.metadata.get("symbol", "")
        kind = result.metadata.get("kind", "")
        label = f"  {kind} {symbol}".rstrip() if symbol else ""
        print(f"{rank:>2}. {_location(result)}{label}  (score {result.score:.4f})")
        for line in result.content.strip("\n").split("\n")[:lines]:
            print(f"      {line[:110]}")


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
    _print_ranked(results, args.lines)
    return 0


def _search_batch(args: argparse.Namespace) -> int:
    try:
        lines = Path(args.queries).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        print(f"ragls: cannot read --queries {args.queries}: {error}", file=sys.stderr)
        return 2
    with _Session(args) as session:
        print(_indexed_line(session), file=sys.stderr)
        _warn(session.service)
        failed = answer_queries(session.service, lines, args.k, sys.stdout, sys.stderr)
    return 1 if failed else 0


def _indexed_line(session: _Session) -> str:
    status = session.status
    line = (
        f"indexed {status.file_count} files, {status.chunk_count} chunks in {session.seconds:.2f}s"
    )
    stored = status.persistence
    report = session.service.last_report
    if stored is not None and stored.loaded_generation is not None and report is not None:
        line += f" (from the stored index; {report.files_read} files re-read)"
    return line


def command_context(args: argparse.Namespace) -> int:
    with _Session(args) as session:
        _warn(session.service)
        print(session.service.build_context_prompt(args.query, args.k))
    return 0


def command_eval(args: argparse.Namespace) -> int:
    from ragls.evaluation.run import EvalSettings, evaluate_repository, format_table
    from ragls.service.pipelines import pipeline_named

    names = args.pipeline or ["seed", WORKSPACE.name]
    pipelines = [pipeline_named(name) for name in dict.fromkeys(names)]
    if args.questions:
        return _eval_questions(args, pipelines)
    settings = EvalSettings(
        rev=args.rev,
        base=args.base,
        window=args.window,
        max_queries=args.max_queries,
        max_files=args.max_files,
        resamples=args.resamples,
        seed=args.seed,
    )
    report = evaluate_repository(
        Path(args.path),
        pipelines,
        settings,
        lambda line: print(line, file=sys.stderr),
        index_progress=IndexProgressDisplay(sys.stderr),
    )
    print(format_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_json(), indent=1) + "\n", "utf-8")
    return 0


def _eval_questions(args: argparse.Namespace, pipelines: list[Any]) -> int:
    from ragls.evaluation.questions import format_question_table, load_questions
    from ragls.evaluation.run import EvalSettings, evaluate_question_folder

    questions = load_questions(Path(args.questions))
    settings = EvalSettings(resamples=args.resamples, seed=args.seed)
    report = evaluate_question_folder(
        Path(args.path),
        questions,
        pipelines,
        settings,
        lambda line: print(line, file=sys.stderr),
        index_progress=IndexProgressDisplay(sys.stderr),
    )
    print(format_question_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_json(), indent=1) + "\n", "utf-8")
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_eval(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="measure retrieval on a git repository's history",
        description="Each qualifying commit of the window (not a merge, bot, release, format, "
        "typo or dependency commit; modifying 1-4 source files that all exist at the base, none "
        "added or deleted) is a query, subject and body without issue references and "
        "trailers; its answers are the source files it modified. The corpus is the tree at "
        "the base commit, read with git (the work tree is never touched). Prints MRR@10, "
        "Recall@1/5/10 and nDCG@10 per pipeline with bootstrap 95%% intervals.",
    )
    evaluate.add_argument(
        "path",
        help="a git repository (a working copy or a bare one); with --questions, a folder "
        "holding the questions' checkout",
    )
    evaluate.add_argument(
        "--questions",
        metavar="FILE",
        help="score a question set instead of the history: JSON lines of {id, query, "
        "category (symbol|behaviour|architecture), answers: [{file, startLine?, endLine?}], "
        "language?}; prints file-level nDCG@10 per category and language, chunk nDCG@10, "
        "MRR@10 and Recall@10 (docs/retrieval.md)",
    )
    evaluate.add_argument(
        "--pipeline",
        action="append",
        choices=sorted(PIPELINES),
        help="a pipeline to measure (repeatable; default: seed and workspace; the first is "
        "the baseline of the paired differences)",
    )
    evaluate.add_argument("--rev", default="HEAD", help="the newest commit of the window")
    evaluate.add_argument(
        "--base", help="the corpus commit (default: the parent of the window's oldest commit)"
    )
    evaluate.add_argument(
        "--window", type=_positive, default=400, help="non-merge commits read (default 400)"
    )
    evaluate.add_argument(
        "--max-queries", type=_positive, default=300, help="queries kept, newest first"
    )
    evaluate.add_argument(
        "--max-files", type=_positive, default=4, help="most source files a query commit changes"
    )
    evaluate.add_argument("--resamples", type=_positive, default=1000, help="bootstrap resamples")
    evaluate.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    evaluate.add_argument("--json", metavar="FILE", help="also write the full report as JSON")
    evaluate.set_defaults(run=command_eval)


def _folder_config(args: argparse.Namespace) -> KnowledgeSourceConfig | None:
    """The source PATH and its globs name, or None (reported) if PATH is not a directory."""
    root = Path(args.path).resolve()
    if not root.is_dir():
        print(f"ragls: {args.path} is not a directory", file=sys.stderr)
        return None
    return KnowledgeSourceConfig(root, tuple(args.include or ()), tuple(args.exclude or ()))


def _shown(path: str) -> str:
    """A path as one printable line: quoted like a JSON string if it holds control characters."""
    return json.dumps(path) if any(ord(c) < 32 or ord(c) == 127 for c in path) else path


def command_explain(args: argparse.Namespace) -> int:
    config = _folder_config(args)
    if config is None:
        return 2
    ingestion = FileIngestionService()
    for target in args.targets:
        found = explain_path(ingestion, config, target)
        shown = _shown(found.path)
        if found.admitted:
            chunking = f", {found.chunking}" if found.chunking else ""
            print(f"{shown}: would be indexed ({found.format or 'directory'}){chunking}")
        else:
            detail = f": {found.detail}" if found.detail else ""
            print(f"{shown}: not indexed, {found.reason}{detail}")
    return 0


def command_files(args: argparse.Namespace) -> int:
    """The files an index run of PATH would hold: each admitted file goes through the index
    run's own per-file pipeline (read, format, extraction, chunk cap), so a file skipped as
    binary or failing to extract is not listed. Nothing is stored."""
    config = _folder_config(args)
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
        f"ragls: {len(listed)} would be indexed, {skipped} skipped "
        f"(`ragls index {args.path} -v` says why)",
        file=sys.stderr,
    )
    return 0


def command_serve(args: argparse.Namespace) -> int:
    from ragls.lsp.framing import FRAMING_EXIT_CODE, FramedInput
    from ragls.lsp.guard import ProtocolGuard
    from ragls.lsp.logs import configure  # the daemon's imports, only when serving
    from ragls.lsp.server import create_server, handled_requests

    server = create_server()
    configure(server, args.log_level)
    if args.tcp is None:
        guard = ProtocolGuard(sys.stdout.buffer, handled_requests())
        framed = FramedInput(sys.stdin.buffer, args.max_frame_mib * 1024 * 1024, guard)
        try:
            server.start_io(stdin=framed, stdout=sys.stdout.buffer)  # type: ignore[arg-type]
        finally:  # a client gone without shutdown: still save what is unsaved (SPEC §11)
            server.sessions.stop()
        return 0 if framed.error is None else FRAMING_EXIT_CODE
    from ragls.lsp.tcp import TOKEN_EXIT_CODE, TokenCheck, accept_one, parse_address
    from ragls.store.paths import default_cache_root

    host, port = parse_address(args.tcp, args.allow_remote)
    connection, token = accept_one(host, port, default_cache_root())
    output = connection.makefile("wb")
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


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return str(count)


def command_cache(args: argparse.Namespace) -> int:
    from ragls.store.housekeeping import cached_workspaces, remove_cache
    from ragls.store.paths import cache_root, workspace_folder

    root = cache_root(args.cache_dir)
    cached = cached_workspaces(root)
    if args.action == "list":
        if args.json:
            print(json.dumps([_cache_entry(c) for c in cached], indent=2))
            return 0
        print(f"cache folder: {root}", file=sys.stderr)
        for entry in cached:
            state = "" if entry.exists else "  (workspace gone)"
            owner = f"  (in use by process {entry.owner_pid})" if entry.owner_pid else ""
            print(f"{_size(entry.bytes_on_disk):>9}  {entry.root or entry.folder}{state}{owner}")
        total = sum(entry.bytes_on_disk for entry in cached)
        print(f"{len(cached)} cached workspaces, {_size(total)}", file=sys.stderr)
        return 0
    if args.path is not None:
        folder = workspace_folder(Path(args.path).expanduser(), args.cache_dir)
        chosen = [entry for entry in cached if entry.folder == folder]
        if not chosen:
            print(f"ragls: no cached index for {args.path}", file=sys.stderr)
            return 2
    else:
        chosen = [entry for entry in cached if not entry.exists]
    failed = 0
    for entry in chosen:
        problem = remove_cache(entry)
        if problem is None:
            print(f"removed {entry.root or entry.folder} ({_size(entry.bytes_on_disk)})")
        else:
            failed += 1
            print(f"ragls: kept {entry.root or entry.folder}: {problem}", file=sys.stderr)
    if not chosen:
        print("nothing to remove: every cached workspace still exists", file=sys.stderr)
    return 1 if failed else 0


def _cache_entry(entry: Any) -> dict[str, Any]:
    return {
        "folder": str(entry.folder),
        "root": entry.root,
        "exists": entry.exists,
        "bytesOnDisk": entry.bytes_on_disk,
        "generation": entry.generation,
        "writtenAt": entry.written_at,
        "ownerPid": entry.owner_pid,
    }


def _add_cache(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cache = commands.add_parser(
        "cache",
        help="list or remove stored indexes",
        description="Each folder indexed by the daemon or the CLI keeps its index in the cache "
        "folder ($RAGLS_CACHE_DIR, else $XDG_CACHE_HOME/ragls, else ~/.cache/ragls). `list` "
        "shows each with its size; `clean PATH` removes PATH's; `clean` alone removes those "
        "whose folder no longer exists. An index a running process writes is never removed.",
    )
    cache.add_argument("action", choices=["list", "clean"])
    cache.add_argument("path", nargs="?", help="clean: the folder whose index to remove")
    cache.add_argument("--cache-dir", metavar="DIR", help="another cache folder")
    cache.add_argument("--json", action="store_true", help="list: print JSON")
    cache.set_defaults(run=command_cache)


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


def _add_mcp(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragls", description="Workspace retrieval for editors.")
    parser.add_argument("--version", action="version", version=f"ragls {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

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

    context = commands.add_parser("context", help="print the fenced context prompt for a query")
    source(context)
    context.add_argument("query")
    context.add_argument("-k", type=int, default=5, help="how many results (1-100, default 5)")
    context.set_defaults(run=command_context)

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
        type=_positive,
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

    files = commands.add_parser(
        "files",
        help="list the files an index run would hold (each is read and chunked as index does; "
        "nothing is stored)",
    )
    source(files, searched=False)
    files.set_defaults(run=command_files)
    explain = commands.add_parser(
        "explain",
        help="say whether paths would be indexed, and if not why (the rule that refuses them)",
    )
    source(explain, searched=False)
    explain.add_argument("targets", nargs="+", metavar="FILE", help="paths below PATH")
    explain.set_defaults(run=command_explain)
    _add_eval(commands)
    _add_cache(commands)
    _add_mcp(commands)
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

"""``ragls cache list|clean``: the stored indexes of the cache folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ragls.cli.common import printable


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
            where = entry.root or entry.folder
            print(printable(f"{_size(entry.bytes_on_disk):>9}  {where}{state}{owner}"))
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
            print(printable(f"removed {entry.root or entry.folder} ({_size(entry.bytes_on_disk)})"))
        else:
            failed += 1
            print(
                printable(f"ragls: kept {entry.root or entry.folder}: {problem}"), file=sys.stderr
            )
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


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

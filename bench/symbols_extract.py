"""Where the symbol index's extraction CPU goes, and whether two versions extract the same
(issue 28).

    python bench/symbols_extract.py profile ROOT... [--cprofile N]
    python bench/symbols_extract.py hash ROOT... [--out FILE]

Both read the code files under the ROOTs as the chunker does (detection, decoding, normalised
text encoded as UTF-8), keep those whose language has tag queries, and parse each once, in this
process (no worker processes, so a profiler sees everything).

``profile`` times, in CPU seconds of this process: parsing, the chunker's units from the tree
(what the workers do without symbols too), tree-sitter's query cursor visiting every node (a
query that matches nothing: the floor of any query), the tag queries' matching alone
(tree-sitter walking the tree and building the matches, with no Python work on them), the whole
of ``file_symbols`` (best of three passes), pickling the ``FileSymbols`` as a worker ships them
and unpickling them as the main process does, and ``SymbolIndex.replace`` over every file.
``--cprofile N`` adds the N functions of ``file_symbols`` with the most time of their own.

``hash`` prints one SHA-256 over every file's definitions and references (unpacked), and with
``--out`` writes each file's own digest as JSON, so the output of two checkouts can be compared
file by file.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pickle
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tree_sitter import Query, QueryCursor, Tree

from ragls.core.symbols import FileSymbols, SymbolIndex
from ragls.ingest.chunking.normalize import DEFAULT_MAX_LINE_CHARS, normalize_text
from ragls.ingest.chunking.symbols import code_units, grammar_language, has_grammar, parse
from ragls.ingest.formats import DocumentFormat, decode_text, detect
from ragls.ingest.tags.compiled import compiled_query
from ragls.ingest.tags.extract import file_symbols, has_tags

Source = tuple[str, str, bytes]  # path, language, normalised text as UTF-8


def sources(roots: list[Path]) -> list[Source]:
    found: list[Source] = []
    for root in roots:
        for directory, folders, files in os.walk(root):
            folders[:] = sorted(f for f in folders if not f.startswith("."))
            for name in sorted(files):
                path = os.path.join(directory, name)
                try:
                    data = Path(path).read_bytes()
                except OSError:
                    continue
                detected = detect(name, data)
                if detected is None or detected.format is not DocumentFormat.CODE:
                    continue
                if not (has_grammar(detected.language) and has_tags(detected.language)):
                    continue
                text = decode_text(data)
                if text is None:
                    continue
                normalized, _ = normalize_text(text, DEFAULT_MAX_LINE_CHARS)
                if normalized.strip():
                    found.append((path, detected.language, normalized.encode("utf-8")))
    return found


def cpu(work: Callable[[], object], passes: int = 1) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def profile(roots: list[Path], top: int) -> None:
    files = sources(roots)
    trees: list[Tree] = []

    def parse_all() -> None:
        trees.extend(parse(source, language) for _, language, source in files)

    rows = [("parse", cpu(parse_all))]
    pairs = list(zip(files, trees, strict=True))

    def units() -> None:
        for (_, language, source), tree in pairs:
            code_units(source.decode("utf-8"), language, 60, tree)

    rows.append(("chunker units", cpu(units)))
    languages = {language for _, language, _ in files}
    for language in languages:  # queries compiled before anything is timed
        compiled_query(language)
    never = {name: Query(grammar_language(name), "(ERROR (ERROR) @x)") for name in languages}

    def walk_only() -> None:
        for (_, language, _), tree in pairs:
            QueryCursor(never[language]).matches(tree.root_node)

    def matches_only() -> None:
        for (_, language, _), tree in pairs:
            compiled = compiled_query(language)
            if compiled is not None:
                for _ in QueryCursor(compiled.query).matches(tree.root_node):
                    pass

    symbols: list[FileSymbols] = []

    def extract_all() -> None:
        symbols[:] = [file_symbols(tree, s, language) for (_, language, s), tree in pairs]

    rows.append(("tree-sitter visiting every node (a query matching nothing)", cpu(walk_only, 3)))
    rows.append(("tag queries' matches alone", cpu(matches_only, 3)))
    rows.append(("file_symbols (all of it)", cpu(extract_all, 3)))
    blobs: list[bytes] = []

    def pickle_all() -> None:
        blobs.extend(pickle.dumps(each, pickle.HIGHEST_PROTOCOL) for each in symbols)

    rows.append(("pickle FileSymbols", cpu(pickle_all)))
    back: list[FileSymbols] = []
    rows.append(("unpickle FileSymbols", cpu(lambda: back.extend(map(pickle.loads, blobs)))))
    index = SymbolIndex()
    changes = list(zip([path for path, _, _ in files], back, strict=True))
    rows.append(("SymbolIndex.replace", cpu(lambda: index.replace(changes))))
    definitions = sum(each.definition_count for each in symbols)
    references = sum(each.reference_count for each in symbols)
    print(f"{len(files)} files, {definitions} definitions, {references} references")
    print(f"pickled: {sum(map(len, blobs)) / 1e6:.1f} MB")
    print("| step | CPU s |\n|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} |")
    if top:
        profiler = cProfile.Profile()
        profiler.runcall(extract_all)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
        print(out.getvalue())


def digests(roots: list[Path]) -> dict[str, str]:
    found = {}
    for path, language, source in sources(roots):
        symbols = file_symbols(parse(source, language), source, language)
        text = repr((symbols.definitions, tuple(symbols.references())))
        found[path] = hashlib.sha256(text.encode()).hexdigest()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    timed = commands.add_parser("profile")
    timed.add_argument("roots", type=Path, nargs="+")
    timed.add_argument("--cprofile", type=int, default=0, metavar="N")
    hashed = commands.add_parser("hash")
    hashed.add_argument("roots", type=Path, nargs="+")
    hashed.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.command == "profile":
        profile(args.roots, args.cprofile)
        return 0
    found = digests(args.roots)
    total = hashlib.sha256("".join(f"{p}\0{d}\n" for p, d in found.items()).encode())
    print(f"{len(found)} files, {total.hexdigest()}")
    if args.out:
        args.out.write_text(json.dumps(found, indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

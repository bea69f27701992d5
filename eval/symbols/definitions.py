"""Definition recall of ragls's symbol index against Universal Ctags, per language.

    python eval/symbols/definitions.py CHECKOUTS [--ctags ctags] [--json out.json]

For every repository folder below CHECKOUTS, every file ragls would index is run through
ragls's own pipeline (detection, extraction, the chunker's parse, the tag queries) and through
``ctags`` (run locally; nothing is fetched). A ctags definition of a compared kind (classes,
functions, methods, types, modules... not variables, fields, parameters, macros or imports:
``COMPARED_KINDS``) is found when ragls has a definition of the same name in the same file
whose line is within ``LINE_SLACK`` lines (ctags and tree-sitter disagree on where a decorated
or templated definition starts), both names reduced to their last part (``Async:init`` is
``init``). Anonymous functions (ctags's invented names) and minified bundles are left out.
Recall per language is found / ctags definitions; a file ctags and ragls give different
languages counts under ragls's (a C++ header is C to ragls).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from ragls.ingest.chunking.grammars import GRAMMARS
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService

COMPARED_KINDS = frozenset(
    (
        "class",
        "constructor",
        "enum",
        "func",
        "function",
        "interface",
        "method",
        "module",
        "namespace",
        "object",
        "record",
        "singletonMethod",
        "struct",
        "trait",
        "type",
        "typedef",
        "union",
    )
)
# Kinds compared in one language only: ctags's "member" is a Python method but a C or Go field.
LANGUAGE_KINDS = frozenset((("Python", "member"),))
LINE_SLACK = 2
# ctags's names for what has none (anonymous functions, lambdas), left out of the comparison.
ANONYMOUS = re.compile(r"^(?:AnonymousFunction|__anon|<lambda>)|^[^\w$]")
# Minified bundles: one line holding a whole library, no one's workspace symbols.
MINIFIED = re.compile(r"\.min\.[a-z]+$")


def last_part(name: str) -> str:
    """``Async:init``, ``pool::Queue.push`` -> the defined name itself (qualified names differ
    between tools: ctags qualifies some, ragls keeps the container apart)."""
    return re.split(r"[.:#]+", name.rstrip(".:#"))[-1] or name


def ctags_definitions(ctags: str, root: Path, files: list[str]) -> dict[str, list[tuple[str, int]]]:
    """(name, line) of each compared definition ctags finds, by file."""
    found: dict[str, list[tuple[str, int]]] = defaultdict(list)
    command = [ctags, "--output-format=json", "--fields=+nKzl", "-f", "-", "-L", "-"]
    listing = "\n".join(files).encode()
    output = subprocess.run(command, cwd=root, input=listing, capture_output=True, check=False)
    for line in output.stdout.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        kind = tag.get("kind")
        compared = kind in COMPARED_KINDS or (tag.get("language"), kind) in LANGUAGE_KINDS
        name = tag.get("name", "")
        if tag.get("_type") == "tag" and compared and not ANONYMOUS.search(name):
            found[tag["path"]].append((last_part(name), int(tag.get("line", 0))))
    return found


def measure(
    root: Path, ctags: str, totals: dict[str, list[int]], missed: dict[str, list[str]]
) -> None:
    service = FileIngestionService()
    config = KnowledgeSourceConfig(root)
    discovery = service.discover(config)
    ours: dict[str, tuple[str, dict[str, list[int]]]] = {}
    for candidate in discovery.candidates:
        try:
            data = service.read(config, candidate)
        except OSError:
            continue
        detected = service.detect(config, candidate.path, data)
        if detected is None or not detected.language or MINIFIED.search(candidate.path):
            continue
        outcome = service.ingest(config, candidate.path, data, detected)
        lines: dict[str, list[int]] = defaultdict(list)
        for definition in outcome.symbols.definitions:
            lines[last_part(definition.name)].append(definition.line + 1)
        ours[candidate.path] = (detected.language, lines)
    theirs = ctags_definitions(ctags, root, sorted(ours))
    for path, definitions in theirs.items():
        if path not in ours:
            continue
        language, lines = ours[path]
        for name, line in definitions:
            hit = any(abs(line - at) <= LINE_SLACK for at in lines.get(name, ()))
            totals[language][0] += hit
            totals[language][1] += 1
            if not hit:
                missed[language].append(f"{root.name}/{path}:{line} {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", type=Path, help="a folder of repository checkouts")
    parser.add_argument("--ctags", default="ctags", help="the Universal Ctags executable")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--missed", type=int, default=0, help="show N missed definitions each")
    args = parser.parse_args(argv)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: dict[str, list[str]] = defaultdict(list)
    for root in sorted(p for p in args.checkouts.iterdir() if p.is_dir()):
        measure(root, args.ctags, totals, missed)
        print(f"measured {root.name}", file=sys.stderr)
    print("| language | ctags definitions | found by ragls | recall |")
    print("|---|---:|---:|---:|")
    for language, (hits, total) in sorted(totals.items(), key=lambda item: -item[1][1]):
        if language in GRAMMARS:  # the languages ragls parses
            print(f"| {language} | {total:,} | {hits:,} | {hits / total:.3f} |")
    for language, names in sorted(missed.items()):
        if language in GRAMMARS:
            for name in names[: args.missed]:
                print(f"missed {language}: {name}", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps({k: v for k, v in totals.items()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

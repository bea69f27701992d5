"""Definition recall of ragls's symbol index against Universal Ctags, per language.

    python eval/symbols/definitions.py CHECKOUTS [--ctags ctags] [--json out.json]

For every repository folder below CHECKOUTS, every file ragls would index is run through
ragls's own pipeline (detection, extraction, the chunker's parse, the tag queries) and through
``ctags`` (run locally; nothing is fetched). A ctags definition of a compared kind (classes,
functions, methods, types, modules... not variables, fields, parameters, macros or imports:
``COMPARED_KINDS``) is found when ragls has a definition of the same name in the same file
whose line is within ``LINE_SLACK`` lines (ctags and tree-sitter disagree on where a decorated
or templated definition starts), both names reduced to their last part (``Async:init`` is
``init``). Anonymous functions (ctags's invented names), code examples in Elixir's
documentation strings and minified bundles (``.min.js``, or a
line of over ``MINIFIED_LINE`` characters) are left out, and ctags's JavaScript "classes" that
are object literals bound to variables are compared as the variables they are
(:func:`aligned_kind`).
Recall per language is found / ctags definitions; a file ctags and ragls give different
languages counts under ragls's.

Precision is the other way round: a ragls definition of a compared kind (``OUR_KINDS``: not
constants, variables, fields, properties, macros or enum members) in a file ctags tagged is
confirmed when ctags has a tag of *any* kind with the same name within ``LINE_SLACK`` lines
(ctags may call a JavaScript ``const f = () => ...`` a variable where ragls says function; a
name ctags does not know at all is the junk precision counts). Languages ctags does not parse
(Zig, Swift, Dart...) have no figures.
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
from ragls.ingest.tags.languages import QUERIES

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
# ragls's kinds that count for precision (the same families as COMPARED_KINDS).
OUR_KINDS = frozenset(
    (
        "class",
        "enum",
        "function",
        "interface",
        "method",
        "module",
        "object",
        "record",
        "struct",
        "trait",
        "type",
        "union",
    )
)
# Kinds compared in one language only: ctags's "member" is a Python method but a C or Go field.
LANGUAGE_KINDS = frozenset((("Python", "member"),))
LINE_SLACK = 2
# ctags's names for what has none (anonymous functions, lambdas), left out of the comparison.
ANONYMOUS = re.compile(r"^(?:AnonymousFunction|__anon|<lambda>)|^[^\w$]|^_$")
# Minified bundles: one line holding a whole library, no one's workspace symbols.
MINIFIED = re.compile(r"\.min\.[a-z]+$")


def last_part(name: str) -> str:
    """``Async:init``, ``pool::Queue.push`` -> the defined name itself (qualified names differ
    between tools: ctags qualifies some, ragls keeps the container apart)."""
    name = re.sub(r"\s+", "", name)  # ctags's "operator ()" is ragls's "operator()"
    return re.split(r"[.:#]+", name.rstrip(".:#"))[-1] or name


# A line holding this much is a minified bundle whatever its name (a polyfill inlined on one line).
MINIFIED_LINE = 5000
# ctags's JavaScript parser calls a variable bound to an object literal a "class" (``const b =
# {}`` in a test callback); ragls, like the language, calls it a variable. A "class" on a line
# with neither ``class`` nor ``function`` is such an object and is not compared.
JS_OBJECT_CLASS = re.compile(r"\b(?:class|function)\b")


# ctags's Haskell parser reads words of other lines as functions: keywords (``class``,
# ``deriving``...) and capitalised names (types in record fields, words of comments); a
# Haskell function or value never starts with a capital letter. Such tags are not compared.
HASKELL_KEYWORDS = frozenset(
    "case class data default deriving do else family foreign if import in infix infixl infixr"
    " instance let module newtype of pattern then type where".split()
)
# ctags's Lua parser calls a variable bound to a call that takes a function (``local task =
# Task.new(..., function() ... end)``) a function; only ``function name`` and ``name =
# function`` are compared.
# ctags's Kotlin parser calls a lambda's parameters (``factory { (i: Int) -> ... }``) methods;
# a Kotlin function is declared with ``fun``, and only such lines' methods are compared.
KOTLIN_FUN = re.compile(r"\bfun\b")
# ctags tags every equation of a Haskell function and every clause of an Elixir one; ragls
# makes them one definition (``merge_clauses``), from the type signature to the last equation,
# so a run of tags of one name, kind and scope counts once, as its first, and is found
# anywhere in such a definition's lines.
CLAUSE_LANGUAGES = frozenset(("Haskell", "Elixir"))
# ctags's Sh parser reads an array assignment ``args=(...)`` as a function called ``args=``.
SH_ARRAY = re.compile(r"=$")


def aligned_kind(tag: dict[str, str]) -> str:
    """ctags's kind, with what it misreads (see above) called what it is: "variable"."""
    kind, name, language = tag.get("kind", ""), tag.get("name", ""), tag.get("language")
    pattern = tag.get("pattern", "")
    if language == "JavaScript" and kind == "class" and not JS_OBJECT_CLASS.search(pattern):
        return "variable"
    misread = name in HASKELL_KEYWORDS or name[:1].isupper()
    if language == "Haskell" and kind == "function" and misread:
        return "variable"
    if language == "Sh" and SH_ARRAY.search(name):
        return "variable"
    if language == "Kotlin" and kind == "method" and not KOTLIN_FUN.search(tag.get("pattern", "")):
        return "variable"
    stem = Path(tag.get("path", "")).stem
    if language == "OCaml" and kind == "module" and name == stem[:1].upper() + stem[1:]:
        return "file"  # the module a file is, which ctags tags on its first line
    if language == "Lua" and kind == "function":
        bound = re.compile(
            rf"function\s+[\w.:]*\b{re.escape(name)}\b|\b{re.escape(name)}\s*=\s*function\b"
        )
        if not bound.search(tag.get("pattern", "")):
            return "variable"
    return kind


def heredoc_lines(data: bytes) -> set[int]:
    """The (1-based) lines inside an Elixir file's ``\"\"\"`` strings (``@moduledoc``, ``@doc``),
    whose code examples ctags reads as definitions."""
    inside, lines = False, set()
    for number, text in enumerate(data.splitlines(), 1):
        if text.count(b'"""') % 2:
            inside = not inside
        elif inside:
            lines.add(number)
    return lines


def ctags_definitions(
    ctags: str, root: Path, files: list[str]
) -> tuple[dict[str, list[tuple[str, int, str]]], dict[str, dict[str, list[int]]]]:
    """(name, line, kind) of each compared definition ctags finds, by file; and the lines of
    every tag of any kind (C and C++ prototypes too), by file and name."""
    found: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    every: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    command = [ctags, "--output-format=json", "--fields=+nKzl", "--sort=no"]
    command += ["--kinds-C=+p", "--kinds-C++=+p"]
    command += ["-f", "-", "-L", "-"]
    listing = "\n".join(files).encode()
    output = subprocess.run(command, cwd=root, input=listing, capture_output=True, check=False)
    previous: dict[str, tuple[str, str, str]] = {}  # by file: the last compared tag
    for line in output.stdout.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        kind = aligned_kind(tag)
        compared = kind in COMPARED_KINDS or (tag.get("language"), kind) in LANGUAGE_KINDS
        name = tag.get("name", "")
        if tag.get("_type") != "tag":
            continue
        every[tag["path"]][last_part(name)].append(int(tag.get("line", 0)))
        if compared and not ANONYMOUS.search(name):
            clause = (name, kind, tag.get("scope", ""))
            if tag.get("language") in CLAUSE_LANGUAGES and previous.get(tag["path"]) == clause:
                continue  # the next equation or clause of the function just tagged
            previous[tag["path"]] = clause
            found[tag["path"]].append((last_part(name), int(tag.get("line", 0)), kind))
    return found, every


def measure(
    root: Path,
    ctags: str,
    totals: dict[str, list[int]],
    missed: dict[str, list[str]],
    junk: dict[str, list[str]],
) -> None:
    """Adds ``root``'s counts to ``totals[language]``: [found, ctags definitions, confirmed,
    ragls definitions of a compared kind in files ctags tagged]."""
    service = FileIngestionService()
    config = KnowledgeSourceConfig(root)
    discovery = service.discover(config)
    ours: dict[str, tuple[str, dict[str, list[int]], list[tuple[str, int]]]] = {}
    documentation: dict[str, set[int]] = {}
    for candidate in discovery.candidates:
        try:
            data = service.read(config, candidate)
        except OSError:
            continue
        detected = service.detect(config, candidate.path, data)
        if detected is None or not detected.language or MINIFIED.search(candidate.path):
            continue
        if max(map(len, data.splitlines()), default=0) > MINIFIED_LINE:
            continue
        outcome = service.ingest(config, candidate.path, data, detected)
        if outcome.skipped is not None:  # over a cap: not indexed, so no symbols either
            continue
        lines: dict[str, list[int]] = defaultdict(list)
        compared: list[tuple[str, int]] = []
        spec = QUERIES.get(detected.language)
        merged = getattr(spec, "merge_clauses", False)  # (older code has no such setting)
        for definition in outcome.symbols.definitions:
            at = [definition.line + 1]
            if merged:  # one definition for a function's equations: each of its lines counts
                at = list(range(definition.line + 1, definition.end_line + 2))
            lines[last_part(definition.name)] += at
            if "." in definition.name:  # ctags names a Haskell module by its first part
                lines[definition.name.split(".", 1)[0]] += at
            if definition.kind in OUR_KINDS:
                compared.append((definition.name, definition.line + 1))
        ours[candidate.path] = (detected.language, lines, compared)
        if detected.language == "elixir":
            documentation[candidate.path] = heredoc_lines(data)
    theirs, every = ctags_definitions(ctags, root, sorted(ours))
    for path, tags in every.items():
        if path not in ours:
            continue
        language, _, compared = ours[path]
        for name, line in compared:
            names = {last_part(name), name.split(".", 1)[0]}
            confirmed = any(
                abs(line - at) <= LINE_SLACK for part in names for at in tags.get(part, ())
            )
            totals[language][2] += confirmed
            totals[language][3] += 1
            if not confirmed:
                junk[language].append(f"{root.name}/{path}:{line} {name}")
    for path, definitions in theirs.items():
        if path not in ours:
            continue
        language, lines, _ = ours[path]
        for name, line, kind in definitions:
            if line in documentation.get(path, ()):
                continue  # an example in a documentation string
            hit = any(abs(line - at) <= LINE_SLACK for at in lines.get(name, ()))
            totals[language][0] += hit
            totals[language][1] += 1
            if not hit:
                missed[language].append(f"{root.name}/{path}:{line} {name} ({kind})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", type=Path, help="a folder of repository checkouts")
    parser.add_argument("--ctags", default="ctags", help="the Universal Ctags executable")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--missed", type=int, default=0, help="show N missed definitions each")
    args = parser.parse_args(argv)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    missed: dict[str, list[str]] = defaultdict(list)
    junk: dict[str, list[str]] = defaultdict(list)
    for root in sorted(p for p in args.checkouts.iterdir() if p.is_dir()):
        measure(root, args.ctags, totals, missed, junk)
        print(f"measured {root.name}", file=sys.stderr)
    print(
        "| language | ctags definitions | found by ragls | recall | ragls definitions | precision |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for language, (hits, total, confirmed, ours) in sorted(
        totals.items(), key=lambda item: -item[1][1]
    ):
        if language in GRAMMARS and total:  # the languages ragls parses
            precision = f"{confirmed / ours:.3f}" if ours else "-"
            recall = f"{hits / total:.3f}"
            print(f"| {language} | {total:,} | {hits:,} | {recall} | {ours:,} | {precision} |")
    for kind, found in (("missed", missed), ("unconfirmed", junk)):
        for language, names in sorted(found.items()):
            if language in GRAMMARS:
                for name in names[: args.missed]:
                    print(f"{kind} {language}: {name}", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps({k: v for k, v in totals.items()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reference precision and recall of ragls's name-based references against a language oracle.

    python eval/symbols/references.py ROOT --oracle jedi|typescript [--sample 40] [--seed 28]
        [--false-positives 12] [--json out.json]

ROOT is one checkout (read-only: nothing is written below it). Every file ragls would index
goes through ragls's own pipeline (detection, extraction, the chunker's parse, the tag
queries) into a :class:`~ragls.core.symbols.SymbolIndex`; references are answered by
:func:`ragls.core.symbol_lookup.references`, the function behind ``rag/references`` and the
MCP tool ``find_references``.

**Sample.** ``--sample`` definitions drawn with ``random.Random(seed)`` from the sorted list of
every definition that is a function, method or class (``SAMPLED_KINDS``), lies in a file of the
oracle's language outside tests (the ranking layer's test-path pattern, as
``workspace/symbol`` uses), and whose name is not generic: dunder names (``__init__``,
``__eq__``) and JavaScript's ``constructor`` are left out because syntax calls them
(``Client(...)``, ``a == b``, ``new Router()``), not their name, so neither tool's answer for
them is a list of uses of the name; names under ``MIN_NAME`` characters
are left out as no one asks for the references of ``f``. Nothing else is filtered: a name
defined in several places (``send`` on two clients) is sampled as often as its definitions
are, which is what a developer asking "who calls this" meets.

**Oracle.** ``jedi`` (Python; ``Script.get_references`` at the definition's name, the project
scope, builtins left out) or ``typescript`` (``findReferences`` of the TypeScript language
service, run by ``typescript-oracle/references.js`` with node over the same files ragls
indexed). Install them with ``pip install -r eval/symbols/requirements.txt`` and
``npm ci --prefix eval/symbols/typescript-oracle``.

**Hit.** A reference is its (file, line): the same file and the same 0-based line in both
answers, each answer a set of such pairs (two uses on one line count once). The sampled
definition's own line is taken out of both answers (the oracle lists the definition among its
references, ragls lists definitions apart), so a ragls reference on that line is neither a hit
nor a false positive. Only files the oracle reads count (ragls's name-based answer for a
Python name also lists uses in a JavaScript file; those are counted apart, as
``other_language``).

**Scores.** Per language, pooled over the sampled symbols: precision = ragls's references the
oracle also reports / ragls's references; recall = the oracle's references ragls also reports
/ the oracle's references. Symbols with no ragls reference add nothing to precision. Each false
positive is classified by asking the oracle where the use at that position goes (``goto``):
another definition in the project with the same name, something outside the project (the
standard library, a dependency, a builtin), or nothing it resolves.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

Location = tuple[str, int]  # (file relative to the root, 0-based line)

SAMPLED_KINDS = frozenset(("function", "method", "class"))
MIN_NAME = 3
# Names syntax calls rather than their uses: Python's dunders, JavaScript's constructor.
SYNTAX_CALLED = re.compile(r"^__\w+__$|^constructor$")
ORACLE_LANGUAGES = {
    "jedi": frozenset(("python",)),
    "typescript": frozenset(("typescript", "tsx", "javascript")),
}
TYPESCRIPT_ORACLE = Path(__file__).parent / "typescript-oracle" / "references.js"


@dataclass(frozen=True)
class Symbol:
    """A sampled definition: where its name is (0-based line and column)."""

    name: str
    kind: str
    file: str
    line: int
    column: int
    container: str = ""


@dataclass
class Score:
    """Counts pooled over symbols: ``hits`` are in both answers."""

    symbols: int = 0
    ours: int = 0
    theirs: int = 0
    hits: int = 0
    other_language: int = 0
    answered: int = 0  # symbols with at least one ragls reference
    precision_sum: float = 0.0  # of their own precisions

    @property
    def mean_precision(self) -> float:
        """The mean over symbols ragls answers of each one's precision (a popular name weighs as
        much as a rare one, unlike :attr:`precision`, pooled over references)."""
        return self.precision_sum / self.answered if self.answered else 1.0

    @property
    def precision(self) -> float:
        return self.hits / self.ours if self.ours else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.theirs if self.theirs else 1.0

    def add(self, other: Score) -> None:
        self.symbols += other.symbols
        self.ours += other.ours
        self.theirs += other.theirs
        self.hits += other.hits
        self.other_language += other.other_language
        self.answered += other.answered
        self.precision_sum += other.precision_sum


@dataclass
class Compared:
    score: Score
    false_positives: list[Location] = field(default_factory=list)
    false_negatives: list[Location] = field(default_factory=list)


def compare(
    definition: Location,
    ours: Iterable[Location],
    theirs: Iterable[Location],
    compared_files: frozenset[str] | set[str] | None = None,
) -> Compared:
    """Score one symbol: ragls's references ``ours`` against the oracle's ``theirs`` (see the
    module doc: (file, line) sets, the definition's own line out of both, ragls's references in
    files outside ``compared_files`` counted apart)."""
    our_set = set(ours) - {definition}
    their_set = set(theirs) - {definition}
    other = set()
    if compared_files is not None:
        other = {each for each in our_set if each[0] not in compared_files}
        our_set -= other
    hits = our_set & their_set
    score = Score(1, len(our_set), len(their_set), len(hits), len(other))
    if our_set:
        score.answered, score.precision_sum = 1, len(hits) / len(our_set)
    return Compared(score, sorted(our_set - their_set), sorted(their_set - our_set))


def sample_symbols(candidates: Sequence[Symbol], size: int, seed: int) -> list[Symbol]:
    """``size`` symbols drawn with ``seed`` from the sampleable ``candidates`` (module doc)."""
    kept = sorted(
        {
            each
            for each in candidates
            if each.kind in SAMPLED_KINDS
            and len(each.name) >= MIN_NAME
            and not SYNTAX_CALLED.match(each.name)
        },
        key=lambda each: (each.file, each.line, each.column, each.name),
    )
    return random.Random(seed).sample(kept, min(size, len(kept)))


# ---- ragls's side ----------------------------------------------------------------------------


def ragls_index(root: Path) -> tuple[object, dict[str, str]]:
    """The symbol index of ``root`` as ragls builds it, and each file's language."""
    from ragls.core.symbols import SymbolIndex
    from ragls.ingest.config import KnowledgeSourceConfig
    from ragls.ingest.ingestion import FileIngestionService

    service = FileIngestionService()
    config = KnowledgeSourceConfig(root)
    index = SymbolIndex()
    languages: dict[str, str] = {}
    changes = []
    for candidate in service.discover(config).candidates:
        try:
            data = service.read(config, candidate)
        except OSError:
            continue
        detected = service.detect(config, candidate.path, data)
        if detected is None or not detected.language:
            continue
        outcome = service.ingest(config, candidate.path, data, detected)
        languages[candidate.path] = detected.language
        changes.append((candidate.path, outcome.symbols))
    index.replace(changes)
    return index, languages


def candidates_of(
    index: object, languages: dict[str, str], compared: frozenset[str]
) -> list[Symbol]:
    from ragls.core.symbols import SymbolIndex, is_test_path

    assert isinstance(index, SymbolIndex)
    found = []
    with index.locked() as view:
        for path, symbols in view.files.items():
            if languages.get(path) not in compared or is_test_path(path):
                continue
            found.extend(
                Symbol(d.name, d.kind, path, d.line, d.column, d.container)
                for d in symbols.definitions
            )
    return found


def ragls_references(index: object, name: str) -> set[Location]:
    from ragls.core import symbol_lookup

    answer = symbol_lookup.references(index, name, 1_000_000)  # type: ignore[arg-type]
    return {
        (group.path, found.reference.line) for group in answer.files for found in group.references
    }


# ---- the oracles -----------------------------------------------------------------------------


class Jedi:
    """Python references and definitions from jedi over the whole checkout."""

    def __init__(self, root: Path) -> None:
        import jedi

        self.root = root.resolve()
        self.project = jedi.Project(self.root)
        self._scripts: dict[str, object] = {}

    def _script(self, file: str) -> object:
        import jedi

        if file not in self._scripts:
            path = self.root / file
            code = path.read_text(encoding="utf-8", errors="replace")
            self._scripts[file] = jedi.Script(code, path=path, project=self.project)
        return self._scripts[file]

    def _relative(self, names: Iterable[object]) -> list[tuple[str, int, bool]]:
        found = []
        for name in names:
            module_path = getattr(name, "module_path", None)
            line = getattr(name, "line", None)
            if module_path is None or line is None:
                found.append(("", -1, False))
                continue
            try:
                relative = Path(module_path).resolve().relative_to(self.root).as_posix()
            except ValueError:
                found.append(("", -1, False))  # outside the checkout
                continue
            found.append((relative, line - 1, bool(name.is_definition())))  # type: ignore[attr-defined]
        return found

    def references(self, symbols: Sequence[Symbol]) -> list[set[Location]]:
        answers = []
        for symbol in symbols:
            script = self._script(symbol.file)
            names = script.get_references(  # type: ignore[attr-defined]
                symbol.line + 1, symbol.column, include_builtins=False, scope="project"
            )
            answers.append({(f, line) for f, line, _ in self._relative(names) if f})
        return answers

    def definitions(self, uses: Sequence[tuple[str, int, int]]) -> list[list[Location]]:
        answers = []
        for file, line, column in uses:
            try:
                names = self._script(file).goto(line + 1, column, follow_imports=True)  # type: ignore[attr-defined]
            except Exception:  # jedi fails on some odd positions: no answer
                names = []
            answers.append([(f, at) for f, at, _ in self._relative(names)])
        return answers


class TypeScript:
    """TypeScript/JavaScript references from the TypeScript language service (node)."""

    def __init__(self, root: Path, files: Sequence[str], node: str = "node") -> None:
        self.root = root.resolve()
        self.files = list(files)
        self.node = node

    def _run(self, queries: list[dict[str, object]]) -> list[list[dict[str, object]]]:
        request = json.dumps({"root": str(self.root), "files": self.files, "queries": queries})
        output = subprocess.run(
            [self.node, str(TYPESCRIPT_ORACLE)],
            input=request.encode(),
            capture_output=True,
            check=True,
        )
        answers: list[list[dict[str, object]]] = json.loads(output.stdout)
        return answers

    def references(self, symbols: Sequence[Symbol]) -> list[set[Location]]:
        queries: list[dict[str, object]] = [
            {"op": "references", "file": s.file, "line": s.line, "column": s.column}
            for s in symbols
        ]
        return [{(str(r["file"]), int(r["line"])) for r in answer} for answer in self._run(queries)]  # type: ignore[call-overload]

    def definitions(self, uses: Sequence[tuple[str, int, int]]) -> list[list[Location]]:
        queries: list[dict[str, object]] = [
            {"op": "definition", "file": f, "line": line, "column": column}
            for f, line, column in uses
        ]
        return [[(str(r["file"]), int(r["line"])) for r in answer] for answer in self._run(queries)]  # type: ignore[call-overload]


# ---- the run ---------------------------------------------------------------------------------


def classify(
    name: str, definitions_of_name: set[Location], goes_to: list[Location], symbol: Location
) -> str:
    """Why a ragls reference the oracle does not list is not one: where the oracle says it goes."""
    inside = [each for each in goes_to if each[0]]
    if symbol in inside:
        return "the sampled symbol (the oracle's references miss it)"
    if any(each in definitions_of_name for each in inside):
        return "another definition of the name in the project"
    if inside:
        return "another symbol in the project (an import or assignment of the name)"
    if goes_to:
        return "outside the project (standard library, dependency, builtin)"
    return "unresolved by the oracle (a dynamic attribute or an untyped value)"


def reference_column(index: object, location: Location, name: str) -> int:
    from ragls.core.symbols import SymbolIndex

    assert isinstance(index, SymbolIndex)
    symbols = index.get(location[0])
    if symbols is not None:
        for reference in symbols.references():
            if reference.line == location[1] and reference.name == name:
                return reference.column
    return 0


def miss_reason(line_text: str, name: str) -> str:
    """Why the oracle's reference on ``line_text`` is not among ragls's, from the line alone."""
    if re.search(r"^\s*(?:from\s+\S+\s+)?import\b|^\s*export\s*\{|\bimport\s*\{", line_text):
        return "an import or export of the name"
    if re.search(rf"(?<![\w$]){re.escape(name)}\s*(?:<[^()]*>)?\s*\(", line_text):
        return "a call, or a declaration the oracle counts (an override, an implementation)"
    return "a use that is not a call (attribute read, type, argument, base class, decorator)"


SELF_WORDS = frozenset(("self", "cls", "this"))


def receiver(line_text: str, column: int) -> str:
    """What a call at ``column`` is made on, read from its line: "" for a bare call (``name(``),
    the last identifier before the dot (``self`` in ``self.name(``), or "?" for an expression."""
    before = line_text[:column].rstrip()
    if not before.endswith("."):
        return ""
    found = re.search(r"([\w$]+)\s*\??\.$", before)
    return found.group(1) if found else "?"


def receiver_keeps(
    symbol: Symbol, call_receiver: str, calling_class: str, class_defines: bool
) -> bool:
    """The what-if of a receiver-aware query (``--receiver-aware``): whether a reference would
    stay in the answer for ``symbol`` if the index knew each call's receiver.

    * a method is never called bare (``name(...)`` is a function or a local of that name);
    * ``self.name(...)`` in a class that defines ``name`` itself, other than the symbol's own,
      calls that class's ``name``;
    * a top-level function or class is never called as ``self.name(...)``.
    ``calling_class`` is the qualified class the reference is in ("" outside any);
    ``class_defines`` whether that class defines the name."""
    if symbol.kind == "method":
        if call_receiver == "":
            return False
        if call_receiver in SELF_WORDS and calling_class and calling_class != symbol.container:
            return not class_defines
        return True
    return not (symbol.container == "" and call_receiver in SELF_WORDS)


def receiver_aware(index: object, root: Path, symbol: Symbol, ours: set[Location]) -> set[Location]:
    """``ours`` less what :func:`receiver_keeps` would drop (receivers read from the source)."""
    from ragls.core.symbols import SymbolIndex

    assert isinstance(index, SymbolIndex)
    kept = set()
    for file, line in ours:
        symbols = index.get(file)
        if symbols is None:
            kept.add((file, line))
            continue
        text = (root / file).read_text(encoding="utf-8", errors="replace").split("\n")
        line_text = text[line] if line < len(text) else ""
        keep = False
        for reference in symbols.references():
            if reference.line != line or reference.name != symbol.name:
                continue
            calling_class = ""
            at = reference.enclosing
            while 0 <= at < len(symbols.definitions):
                enclosing = symbols.definitions[at]
                if enclosing.kind == "method":
                    calling_class = enclosing.container
                    break
                at = -1
            class_defines = any(
                d.name == symbol.name and d.container == calling_class for d in symbols.definitions
            )
            keep = keep or receiver_keeps(
                symbol, receiver(line_text, reference.column), calling_class, class_defines
            )
        if keep:
            kept.add((file, line))
    return kept


def definition_counts(index: object) -> Counter[str]:
    """How many definitions each name has in the whole index."""
    from ragls.core.symbols import SymbolIndex

    assert isinstance(index, SymbolIndex)
    counts: Counter[str] = Counter()
    with index.locked() as view:
        for symbols in view.files.values():
            counts.update(d.name for d in symbols.definitions)
    return counts


def groups_of(symbol: Symbol, defined: Counter[str]) -> list[str]:
    """The rows a symbol counts in: all, its kind, and whether its name is defined once."""
    shared = "name defined once" if defined[symbol.name] <= 1 else "name defined 2+ times"
    return ["all", f"kind: {symbol.kind}", shared]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="one repository checkout (read only)")
    parser.add_argument("--oracle", choices=sorted(ORACLE_LANGUAGES), required=True)
    parser.add_argument("--sample", type=int, default=40, help="symbols to sample")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--false-positives", type=int, default=12, help="show N, classified")
    parser.add_argument("--node", default="node", help="the node executable (typescript)")
    parser.add_argument("--per-symbol", action="store_true", help="list every sampled symbol")
    parser.add_argument(
        "--receiver-aware",
        action="store_true",
        help="also score the what-if of receiver-aware queries (receivers read from the source)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    compared = ORACLE_LANGUAGES[args.oracle]
    index, languages = ragls_index(root)
    files = sorted(path for path, language in languages.items() if language in compared)
    sample = sample_symbols(candidates_of(index, languages, compared), args.sample, args.seed)
    defined = definition_counts(index)
    oracle: Jedi | TypeScript = (
        Jedi(root) if args.oracle == "jedi" else TypeScript(root, files, args.node)
    )
    theirs_all = oracle.references(sample)
    rows: dict[str, Score] = {}
    per_symbol = []
    false_positives: list[tuple[Symbol, Location]] = []
    misses: Counter[str] = Counter()
    for symbol, theirs in zip(sample, theirs_all, strict=True):
        ours = ragls_references(index, symbol.name)
        result = compare((symbol.file, symbol.line), ours, theirs, set(files))
        for group in groups_of(symbol, defined):
            rows.setdefault(group, Score()).add(result.score)
        if args.receiver_aware:
            narrowed = receiver_aware(index, root, symbol, ours)
            what_if = compare((symbol.file, symbol.line), narrowed, theirs, set(files))
            for group in groups_of(symbol, defined):
                rows.setdefault(f"what-if, receiver-aware: {group}", Score()).add(what_if.score)
        per_symbol.append((symbol, result.score))
        false_positives.extend((symbol, each) for each in result.false_positives)
        for file, line in result.false_negatives:
            text = (root / file).read_text(encoding="utf-8", errors="replace").split("\n")
            misses[miss_reason(text[line] if line < len(text) else "", symbol.name)] += 1
    shown = random.Random(args.seed).sample(
        false_positives, min(args.false_positives, len(false_positives))
    )
    reasons: Counter[str] = Counter()
    lines = []
    if shown:
        goes_to = oracle.definitions(
            [(f, line, reference_column(index, (f, line), s.name)) for s, (f, line) in shown]
        )
        with index.locked() as view:  # type: ignore[attr-defined]
            for (symbol, location), target in zip(shown, goes_to, strict=True):
                where = {
                    (path, d.line)
                    for path in view.definition_files.get(symbol.name, ())
                    for d in view.files[path].definitions
                    if d.name == symbol.name
                }
                reason = classify(symbol.name, where, target, (symbol.file, symbol.line))
                reasons[reason] += 1
                lines.append(f"{location[0]}:{location[1] + 1} {symbol.name}: {reason}")
    total = rows["all"]
    print(f"# {root.name}: {args.oracle}, {total.symbols} symbols (seed {args.seed})")
    print(
        "| symbols | count | ragls references | oracle references | in both "
        "| precision | mean precision per symbol | recall |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for group, score in sorted(
        rows.items(),
        key=lambda item: (
            item[0].startswith("what-if"),
            item[0].endswith(" all") or item[0] == "all",
            item[0],
        ),
    ):
        print(
            f"| {group} | {score.symbols} | {score.ours:,} | {score.theirs:,} | {score.hits:,} "
            f"| {score.precision:.3f} | {score.mean_precision:.3f} | {score.recall:.3f} |"
        )
    print(f"ragls references in files of other languages, not compared: {total.other_language}")
    if args.per_symbol:
        print("\nper symbol (ragls / oracle / both):")
        for symbol, score in sorted(per_symbol, key=lambda item: item[1].hits - item[1].ours):
            print(
                f"  {symbol.kind:8} {symbol.name:32} {symbol.file}:{symbol.line + 1}"
                f"  {score.ours} / {score.theirs} / {score.hits}"
            )
    if lines:
        print(f"\nfalse positives, {len(lines)} of {len(false_positives)} drawn and classified:")
        for line in lines:
            print(f"  {line}")
        for reason, count in reasons.most_common():
            print(f"  {count:4}  {reason}")
    if misses:
        print(f"\nthe oracle's references ragls misses ({sum(misses.values())}), from their lines:")
        for reason, count in misses.most_common():
            print(f"  {count:4}  {reason}")
    if args.json is not None:
        figures = {
            "root": root.name,
            "oracle": args.oracle,
            "seed": args.seed,
            "rows": {
                group: {
                    "symbols": score.symbols,
                    "ragls": score.ours,
                    "oracle": score.theirs,
                    "hits": score.hits,
                    "precision": score.precision,
                    "mean_precision": score.mean_precision,
                    "recall": score.recall,
                }
                for group, score in rows.items()
            },
            "false_positive_reasons": dict(reasons),
            "miss_reasons": dict(misses),
            "per_symbol": {
                f"{s.file}:{s.line + 1}:{s.name}": [sc.ours, sc.theirs, sc.hits]
                for s, sc in per_symbol
            },
        }
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

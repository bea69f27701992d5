"""Definition recall and precision against line patterns, for languages ctags has no parser for.

    python eval/symbols/lines.py LANGUAGE CHECKOUT [--missed]

Universal Ctags 5.9 reads neither Zig nor Swift nor Scala nor Dart. For those the oracle is a
regular expression per language (``ORACLES``) over each file's lines: a declaration keyword
(``fn``; ``func``, ``class``, ``struct``...; ``def``, ``class``, ``object``...) after any
modifiers, and the name after it (Swift: also ``init``; Zig: also ``const NAME = struct / enum
/ union / opaque / error``; Dart, whose functions start with a type: a class-like keyword,
``TYPE name(`` on a line that is not a statement, or ``get name`` / ``set name``). Symbolic
names (operators) are not matched. A definition is found, or one of ragls's of a compared kind
confirmed, as in ``definitions.py``: same name, same file, within two lines. A file the
pipeline skips (over a cap) has no symbols and is left out.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService

_SWIFT_MODIFIERS = (
    "public|private|fileprivate|internal|open|package|final|static|class|override|mutating"
    "|nonmutating|convenience|required|indirect|nonisolated|dynamic|optional"
)
ORACLES: dict[str, tuple[str, re.Pattern[str]]] = {
    "zig": (
        ".zig",
        re.compile(
            r"^[ \t]*(?:pub\s+)?(?:(?:export|extern(?:\s+\"\w+\")?|inline|noinline)\s+)*"
            r"fn\s+(\w+)"
            r"|^[ \t]*(?:pub\s+)?const\s+(\w+)\s*(?::[^=]*)?=\s*(?:packed\s+|extern\s+)?"
            r"(?:struct|enum|union|opaque|error)\b",
            re.MULTILINE,
        ),
    ),
    "swift": (
        ".swift",
        re.compile(
            r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?[ \t]+)*"
            rf"(?:(?:{_SWIFT_MODIFIERS})(?:\(set\))?[ \t]+)*"
            r"(?:(?:func|class|struct|enum|protocol|actor|typealias)[ \t]+(\w+)"
            r"|(init)[?!]?[ \t]*[(<])",
            re.MULTILINE,
        ),
    ),
    "scala": (
        ".scala",
        re.compile(
            r"^[ \t]*(?:(?:private|protected)(?:\[\w+\])?[ \t]+"
            r"|(?:override|final|sealed|abstract|implicit|lazy|case|inline|transparent|open"
            r"|infix|opaque)[ \t]+)*"
            r"(?:def|class|object|trait|type|enum)[ \t]+(\w+)",
            re.MULTILINE,
        ),
    ),
    "dart": (
        ".dart",
        re.compile(
            r"^[ \t]*(?:(?:abstract|base|final|interface|sealed|mixin)[ \t]+)*"
            r"(?:class|mixin|enum|extension(?:[ \t]+type)?|typedef)[ \t]+([\w$]+)"
            r"|^[ \t]*(?:@\w+[ \t]+)*(?:(?:static|external|abstract)[ \t]+)*"
            r"(?!return\b|await\b|throw\b|yield\b|else\b|new\b|const\b|final\b|var\b)"
            r"(?:void|[A-Za-z_][\w$.]*(?:<[^()=;]*>)?\??)[ \t]+"
            r"(?!get\b|set\b|operator\b|Function\b|for\b|if\b|while\b|switch\b)([\w$]+)"
            r"[ \t]*(?:<[^()]*>)?\((?![^)]*\)[ \t]*;)"
            r"|^[ \t]*(?![/*])(?:(?:static|external|abstract)[ \t]+)*(?:[^=;(\n]*[ \t])?"
            r"(?:get|set)[ \t]+([\w$]+)[ \t]*(?:\(|=>|\{|;)",
            re.MULTILINE,
        ),
    ),
}
KINDS = frozenset(
    ("function", "method", "class", "struct", "enum", "interface", "object", "trait", "type")
)
LINE_SLACK = 2


def main(argv: list[str]) -> int:
    language, checkout, show = argv[0], Path(argv[1]), "--missed" in argv[2:]
    suffix, oracle = ORACLES[language]
    service = FileIngestionService()
    config = KnowledgeSourceConfig(checkout)
    found = total = confirmed = ours = 0
    for path in sorted(checkout.rglob(f"*{suffix}")):
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        wanted = [
            (next(group for group in match.groups() if group), text.count("\n", 0, match.start()))
            for match in oracle.finditer(text)
        ]
        detected = service.detect(config, path.name, data)
        outcome = service.ingest(config, path.name, data, detected)
        if outcome.skipped is not None:  # over a cap: not indexed, no symbols (reported)
            print(f"skipped {path.relative_to(checkout)}: {outcome.skipped}", file=sys.stderr)
            continue
        definitions = outcome.symbols.definitions
        where = path.relative_to(checkout)
        for name, line in wanted:
            total += 1
            hit = any(d.name == name and abs(d.line - line) <= LINE_SLACK for d in definitions)
            found += hit
            if show and not hit:
                print(f"missed {where}:{line + 1} {name}", file=sys.stderr)
        for definition in definitions:
            if definition.kind in KINDS:
                ours += 1
                hit = any(
                    name == definition.name and abs(line - definition.line) <= LINE_SLACK
                    for name, line in wanted
                )
                confirmed += hit
                if show and not hit:
                    print(
                        f"unconfirmed {where}:{definition.line + 1} {definition.name}",
                        file=sys.stderr,
                    )
    print(
        f"| {language} | {total:,} | {found:,} | {found / max(total, 1):.3f} "
        f"| {ours:,} | {confirmed / max(ours, 1):.3f} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

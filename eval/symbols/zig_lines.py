"""Zig definition recall and precision against a line pattern (ctags has no Zig parser).

    python eval/symbols/zig_lines.py CHECKOUT

The oracle is ``ORACLE``: ``fn NAME`` (with ``pub``, ``export``, ``extern``, ``inline``) and
``const NAME = struct / enum / union / opaque / error``. A definition is found or confirmed as
in ``definitions.py``: same name, same file, within two lines.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService

ORACLE = re.compile(
    r"^[ \t]*(?:pub\s+)?(?:(?:export|extern(?:\s+\"\w+\")?|inline|noinline)\s+)*fn\s+(\w+)"
    r"|^[ \t]*(?:pub\s+)?const\s+(\w+)\s*(?::[^=]*)?=\s*(?:packed\s+|extern\s+)?"
    r"(?:struct|enum|union|opaque|error)\b",
    re.MULTILINE,
)
KINDS = frozenset(("function", "method", "struct", "enum", "type"))


def main(argv: list[str]) -> int:
    service = FileIngestionService()
    config = KnowledgeSourceConfig(Path(argv[0]))
    found = total = confirmed = ours = 0
    for path in sorted(Path(argv[0]).rglob("*.zig")):
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        wanted = [
            (match.group(1) or match.group(2), text.count("\n", 0, match.start()))
            for match in ORACLE.finditer(text)
        ]
        detected = service.detect(config, path.name, data)
        definitions = service.ingest(config, path.name, data, detected).symbols.definitions
        for name, line in wanted:
            total += 1
            found += any(d.name == name and abs(d.line - line) <= 2 for d in definitions)
        for definition in definitions:
            if definition.kind in KINDS:
                ours += 1
                confirmed += any(
                    name == definition.name and abs(line - definition.line) <= 2
                    for name, line in wanted
                )
    print(f"oracle {total:,}, found {found:,}, recall {found / max(total, 1):.3f}")
    print(f"ragls {ours:,}, confirmed {confirmed:,}, precision {confirmed / max(ours, 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

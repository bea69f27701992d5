"""Share of chunked source lines that fall in named symbol chunks, per language (docs/retrieval.md).

Usage: ``python bench/symbol_share.py FOLDER [LANGUAGE,...]``. Every source file the folder's
ingestion admits is chunked as a full index would chunk it; a line counts as named when the
chunk holding it carries a ``symbol``.
"""

from __future__ import annotations

import sys
from collections import Counter

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.ingestion import FileIngestionService


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    wanted = set(argv[1].split(",")) if len(argv) > 1 else None
    service = FileIngestionService()
    config = KnowledgeSourceConfig(argv[0])
    files: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    named: Counter[str] = Counter()
    for candidate in service.discover(config).candidates:
        data = service.read(config, candidate)
        detected = service.detect(config, candidate.path, data)
        if detected is None or detected.format is not DocumentFormat.CODE:
            continue
        if wanted is not None and detected.language not in wanted:
            continue
        documents = service.ingest(config, candidate.path, data, detected).documents
        files[detected.language] += 1 if documents else 0
        for document in documents:
            count = int(document.metadata["end_line"]) - int(document.metadata["start_line"]) + 1
            lines[detected.language] += count
            named[detected.language] += count if document.metadata.get("symbol") else 0
    print("| language | files | lines | in symbol chunks |\n|---|---|---|---|")
    for language in sorted(lines):
        share = 100 * named[language] / lines[language]
        print(f"| {language} | {files[language]} | {lines[language]:,} | {share:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""CodeChunker: chunk one source file on its own (SPEC §8, seed "CodeChunker").

It runs the very detection, extractor and NormalizedDocumentChunker that FILE ingest runs, so its
symbol boundaries, ids, limits and provenance match a full index of the same file. FileIndexer
does not call it.
"""

from __future__ import annotations

from pathlib import Path

from ragls.core.documents import Document
from ragls.errors import InvalidArgumentError
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService


class CodeChunker:
    def __init__(self, ingestion: FileIngestionService | None = None) -> None:
        self.ingestion = ingestion if ingestion is not None else FileIngestionService()

    def chunk(
        self, path: str | Path, *, root: str | Path | None = None, content: bytes | None = None
    ) -> list[Document]:
        """Chunks of the file at ``path``; ids and ``file`` metadata are relative to ``root``
        (the file's folder when omitted). ``content`` stands in for reading the file."""
        file_path = Path(path)
        base = Path(root) if root is not None else file_path.parent
        try:
            relative = file_path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError as error:
            raise InvalidArgumentError(f"{file_path} is not below {base}") from error
        data = file_path.read_bytes() if content is None else content
        if len(data) > self.ingestion.limits.max_file_bytes:
            raise InvalidArgumentError(
                f"{relative} is {len(data)} bytes, over max_file_bytes "
                f"({self.ingestion.limits.max_file_bytes})"
            )
        config = KnowledgeSourceConfig(base)
        detected = self.ingestion.detect(config, relative, data)
        outcome = self.ingestion.ingest(config, relative, data, detected)
        if outcome.skipped is not None:
            detail = f" ({outcome.skipped.detail})" if outcome.skipped.detail else ""
            raise InvalidArgumentError(
                f"{relative} cannot be chunked: {outcome.skipped.reason.value}{detail}"
            )
        return outcome.documents

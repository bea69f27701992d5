"""FileIngestionService: discovery and the per-file pipeline (SPEC §8, seed "FileIndexer").

``discover`` walks a source and returns candidates and skips; ``check_path`` decides one path the
same way without walking (the watcher's route); ``read`` opens a candidate safely (no links
followed, no FIFO opened, at most ``max_file_bytes``); ``ingest`` detects the format, extracts and
chunks one file's bytes. Partial failure is a value: ``ingest`` returns the chunks or a
:class:`Skipped` with the reason, never raises for a bad file.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field

from ragls.core.documents import Document
from ragls.core.symbols import NO_SYMBOLS, FileSymbols
from ragls.ingest.admission import Admission, Skipped, SkipReason
from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.chunking.normalize import normalize_text
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.extract import EXTRACTOR_VERSION, ExtractionError, extract
from ragls.ingest.formats import Detected, DocumentFormat, detect, is_binary_name
from ragls.ingest.limits import Limits
from ragls.ingest.secrets import redact
from ragls.ingest.tags.languages import TAGS_VERSION
from ragls.ingest.walk import Candidate, walk


@dataclass(frozen=True, slots=True)
class Discovery:
    candidates: list[Candidate]
    skipped: list[Skipped]


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """The result of the pipeline for one file: chunks, or why there are none."""

    documents: list[Document] = field(default_factory=list)
    skipped: Skipped | None = None
    cut_lines: int = 0
    keep_previous: bool = False  # a transient failure: the file's previous chunks stay
    symbols: FileSymbols = NO_SYMBOLS  # definitions and references (ragls.ingest.tags)


class FileTooLargeError(OSError):
    pass


class FileIngestionService:
    def __init__(
        self,
        limits: Limits | None = None,
        chunker: NormalizedDocumentChunker | None = None,
    ) -> None:
        self.limits = limits if limits is not None else Limits.defaults()
        self.chunker = chunker if chunker is not None else NormalizedDocumentChunker()

    def admission(self, config: KnowledgeSourceConfig) -> Admission:
        return Admission(config, self.limits)

    def discover(
        self, config: KnowledgeSourceConfig, admission: Admission | None = None
    ) -> Discovery:
        admission = admission or self.admission(config)
        candidates: list[Candidate] = []
        skipped: list[Skipped] = []
        for item in walk(admission):
            (candidates if isinstance(item, Candidate) else skipped).append(item)  # type: ignore[arg-type]
        return Discovery(candidates, skipped)

    def check_path(self, admission: Admission, relative: str) -> Candidate | Skipped | None:
        """One file path decided as the walk would; None if nothing is there any more."""
        try:
            info = os.lstat(admission.root / relative)
        except FileNotFoundError:
            return None
        except OSError as error:
            return Skipped(relative, SkipReason.UNREADABLE, error.strerror or str(error))
        if stat.S_ISLNK(info.st_mode):
            return Skipped(relative, SkipReason.SYMLINK)
        if not stat.S_ISREG(info.st_mode):
            return Skipped(relative, SkipReason.SPECIAL)
        verdict = admission.path_verdict(relative)
        return verdict if verdict is not None else Candidate.from_stat(relative, info)

    def read(self, config: KnowledgeSourceConfig, candidate: Candidate) -> bytes:
        """The file's bytes; OSError if it cannot be read, FileTooLargeError over the cap."""
        cap = self.limits.max_file_bytes
        if candidate.size > cap:
            raise FileTooLargeError(f"{candidate.size} bytes, over the max_file_bytes cap of {cap}")
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        descriptor = os.open(config.path / candidate.path, flags)
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(f"{candidate.path} is no longer a regular file")
            chunks = []
            remaining = self.limits.max_file_bytes + 1
            while remaining > 0:
                block = os.read(descriptor, min(remaining, 1 << 20))
                if not block:
                    break
                chunks.append(block)
                remaining -= len(block)
        finally:
            os.close(descriptor)
        data = b"".join(chunks)
        if len(data) > self.limits.max_file_bytes:
            raise FileTooLargeError(f"over the max_file_bytes cap of {self.limits.max_file_bytes}")
        return data

    @staticmethod
    def refuse_by_name(relative: str) -> Skipped | None:
        """A file whose name alone says it is binary (an image, an archive) is never read."""
        if is_binary_name(relative.rsplit("/", 1)[-1]):
            return Skipped(relative, SkipReason.BINARY, "a binary file extension")
        return None

    def detect(self, config: KnowledgeSourceConfig, relative: str, data: bytes) -> Detected | None:
        name = relative.rsplit("/", 1)[-1]
        detected = detect(name, data)
        if config.format is DocumentFormat.AUTO or detected is None:
            return detected
        language = detected.language if config.format is DocumentFormat.CODE else ""
        return Detected(config.format, language)

    def pipeline_key(self, config: KnowledgeSourceConfig, detected: Detected | None) -> str:
        described = (
            "unsupported" if detected is None else f"{detected.format.value}:{detected.language}"
        )
        return described + self.static_key(config)

    def static_key(self, config: KnowledgeSourceConfig) -> str:
        """The part of every file's pipeline key that does not depend on its content: a record
        whose fingerprint does not end with it was made under another configuration (selectors,
        secret detection, versions, the chunk cap) and is re-read even if its stat is unchanged."""
        return (
            f"|extractor-{EXTRACTOR_VERSION}|{self.chunker.version_key}"
            f"|{config.selector_key()}|chunks-{self.limits.max_chunks_per_file}"
            f"|tags-{TAGS_VERSION}"
        )

    def ingest(
        self, config: KnowledgeSourceConfig, relative: str, data: bytes, detected: Detected | None
    ) -> FileOutcome:
        if detected is None:
            return FileOutcome(skipped=Skipped(relative, SkipReason.BINARY, "binary content"))
        try:
            extracted = extract(detected, data)
        except ExtractionError as error:
            return FileOutcome(
                skipped=Skipped(relative, SkipReason.EXTRACT_FAILED, str(error)), keep_previous=True
            )
        text = extracted.text
        if config.detect_secrets and extracted.blocks is None:
            text = redact(_normalized(text), relative)[0]
        chunked = self.chunker.chunk(
            text,
            file=relative,
            format=detected.format,
            language=extracted.language or detected.language,
            blocks=extracted.blocks,
            with_symbols=True,
        )
        if len(chunked.documents) > self.limits.max_chunks_per_file:
            detail = f"{len(chunked.documents)} chunks, over {self.limits.max_chunks_per_file}"
            return FileOutcome(skipped=Skipped(relative, SkipReason.TOO_MANY_CHUNKS, detail))
        documents = chunked.documents
        if config.detect_secrets and extracted.blocks is not None:  # chunks made from blocks
            documents = [_redacted(document, relative) for document in documents]
        return FileOutcome(documents, cut_lines=chunked.cut_lines, symbols=chunked.symbols)

    def readable_text(
        self, config: KnowledgeSourceConfig, relative: str, data: bytes, detected: Detected
    ) -> str:
        """One admitted file's text as indexing reads it, for answers that quote files (MCP
        ``read_span``): extracted, normalised (lines end in ``\\n`` only, so line N is line N
        of every chunk's numbering, whatever form feeds or lone carriage returns the file holds)
        and, unless the source turned detection off, with every secret masked as in the index.
        Raises :class:`ExtractionError` when the content is not text."""
        text = _normalized(extract(detected, data).text)
        return redact(text, relative)[0] if config.detect_secrets else text


def _normalized(text: str) -> str:
    # Redaction runs on the text the chunker will see: a control character inside a key, or a
    # lone carriage return inside a PEM block, cannot hide a secret or shift line numbers.
    return normalize_text(text, sys.maxsize)[0]


def _redacted(document: Document, relative: str) -> Document:
    content, found = redact(document.content, relative)
    return Document(document.id, content, document.metadata) if found else document

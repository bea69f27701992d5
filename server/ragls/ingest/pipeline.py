"""One file through the pipeline: read, detect, fingerprint, extract, chunk (SPEC §8).

:func:`process_file` is a pure function of its arguments so that the indexer can run it in the
calling thread or in worker processes (``ragls.ingest.parallel``) with the same result. It never
raises for a bad file: the outcome says what happened.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

from ragls.core.documents import Document
from ragls.core.symbols import NO_SYMBOLS, FileSymbols
from ragls.ingest.admission import Skipped, SkipReason
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.fingerprint import fingerprint
from ragls.ingest.formats import Detected
from ragls.ingest.ingestion import FileIngestionService, FileTooLargeError
from ragls.ingest.walk import Candidate


class Status(enum.Enum):
    REFUSED = "refused"  # refused before reading (binary by name, too large)
    UNREADABLE = "unreadable"  # could not be read: previous chunks stay
    SAME = "same"  # read, fingerprint unchanged: previous chunks stay
    SKIPPED = "skipped"  # read, content refused (binary, too many chunks): no chunks
    FAILED = "failed"  # read, an extractor raised: previous chunks stay
    INVALID = "invalid"  # read, the content cannot be extracted: previous chunks stay
    CHUNKED = "chunked"  # read and chunked anew


@dataclass(frozen=True, slots=True)
class Processed:
    path: str
    status: Status
    skip: Skipped | None = None
    digest: str = ""
    size: int = 0
    read_ns: int = 0
    documents: tuple[Document, ...] = ()
    cut_lines: int = 0
    detected: Detected | None = None  # the format, once the file was read
    symbols: FileSymbols = NO_SYMBOLS  # definitions and references, when chunked


def process_file(
    ingestion: FileIngestionService,
    config: KnowledgeSourceConfig,
    candidate: Candidate,
    prior_digest: str | None,
) -> Processed:
    path = candidate.path
    refused = ingestion.refuse_by_name(path)
    if refused is not None:
        return Processed(path, Status.REFUSED, refused)
    read_ns = time.time_ns()
    try:
        data = ingestion.read(config, candidate)
    except FileTooLargeError as error:
        return Processed(path, Status.REFUSED, Skipped(path, SkipReason.TOO_LARGE, str(error)))
    except OSError as error:
        reason = error.strerror or str(error)
        return Processed(path, Status.UNREADABLE, Skipped(path, SkipReason.UNREADABLE, reason))
    detected = ingestion.detect(config, path, data)
    digest = fingerprint(data, ingestion.pipeline_key(config, detected))
    if digest == prior_digest:
        return Processed(
            path, Status.SAME, digest=digest, size=len(data), read_ns=read_ns, detected=detected
        )
    try:
        outcome = ingestion.ingest(config, path, data, detected)
    except Exception as error:  # a bug in one extractor must not abort the run
        detail = f"{type(error).__name__}: {error}"
        skip = Skipped(path, SkipReason.EXTRACT_FAILED, detail)
        return Processed(path, Status.FAILED, skip, digest, len(data), read_ns, detected=detected)
    if outcome.skipped is not None:
        status = Status.INVALID if outcome.keep_previous else Status.SKIPPED
        return Processed(
            path, status, outcome.skipped, digest, len(data), read_ns, detected=detected
        )
    return Processed(
        path,
        Status.CHUNKED,
        None,
        digest,
        len(data),
        read_ns,
        tuple(outcome.documents),
        outcome.cut_lines,
        detected,
        outcome.symbols,
    )

"""Per-file pipeline fingerprints and the stat pre-check (SPEC §8 "Incremental indexing").

A fingerprint is a BLAKE2b digest of the file's bytes joined with the pipeline key: the detected
format and language, the extractor's and chunker's versions and bounds, and the source's selectors
(include/exclude, forced format, default skips). Any change to one of them re-chunks the file.

The stat pre-check lets a run skip reading a file: it is trusted only when size, mtime, ctime
and inode are all unchanged *and* the recorded mtime was at least ``RACY_WINDOW_NS`` (2 s) older
than the moment the file was read. A file written within that window of its last read could have
changed again without its timestamp moving (coarse timestamp granularity, as git's "racy clean"
entries), so it is read and hashed again; this costs one read of recently changed files only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ragls.core.documents import Document
from ragls.core.symbols import NO_SYMBOLS, FileSymbols
from ragls.ingest.admission import Skipped
from ragls.ingest.walk import Candidate

RACY_WINDOW_NS = 2_000_000_000


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def fingerprint(data: bytes, pipeline_key: str) -> str:
    return f"{content_digest(data)}|{pipeline_key}"


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What the indexer remembers of one file it read: its chunks, or why its content was
    refused (so an unchanged binary file is not read again on the next run)."""

    fingerprint: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    read_ns: int
    documents: tuple[Document, ...]
    skip: Skipped | None = None  # set when the content was refused (binary, too many chunks)
    symbols: FileSymbols = NO_SYMBOLS  # its definitions and references (ragls.ingest.tags)

    def stat_unchanged(self, candidate: Candidate) -> bool:
        """True if the file can be trusted unchanged without reading it (see module doc)."""
        return (
            candidate.size == self.size
            and candidate.mtime_ns == self.mtime_ns
            and candidate.ctime_ns == self.ctime_ns
            and candidate.inode == self.inode
            and self.read_ns - self.mtime_ns >= RACY_WINDOW_NS
        )

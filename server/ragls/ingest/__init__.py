"""Ingestion: discovery, ignore rules, formats, extraction, chunking, fingerprints, the indexer.

Imports the core (and tree-sitter, pypdf, pathspec); never the service or daemon layers.
"""

from __future__ import annotations

from ragls.ingest.admission import Skipped, SkipReason
from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.chunking.code_chunker import CodeChunker
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.indexer import FileIndexer, IndexReport
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits

__all__ = [
    "CodeChunker",
    "DocumentFormat",
    "FileIndexer",
    "FileIngestionService",
    "IndexReport",
    "KnowledgeSourceConfig",
    "Limits",
    "NormalizedDocumentChunker",
    "SkipReason",
    "Skipped",
]

"""ragls: a workspace retrieval daemon for editors and AI coding assistants.

The public names of SPEC §1 are importable from here.
"""

from __future__ import annotations

from ragls.core import (
    BM25Stream,
    Document,
    HybridRetriever,
    InMemoryKnowledgeBase,
    KnowledgeBase,
    KnowledgeBaseStream,
    SearchResult,
    analyze,
)
from ragls.ingest import (
    CodeChunker,
    DocumentFormat,
    FileIndexer,
    FileIngestionService,
    KnowledgeSourceConfig,
    Limits,
    NormalizedDocumentChunker,
)
from ragls.service import DocumentInfo, IndexProgress, IndexStatus, RagService, SessionManager

__version__ = "0.1.0"

__all__ = [
    "BM25Stream",
    "CodeChunker",
    "Document",
    "DocumentFormat",
    "DocumentInfo",
    "FileIndexer",
    "FileIngestionService",
    "HybridRetriever",
    "InMemoryKnowledgeBase",
    "IndexProgress",
    "IndexStatus",
    "KnowledgeBase",
    "KnowledgeBaseStream",
    "KnowledgeSourceConfig",
    "Limits",
    "NormalizedDocumentChunker",
    "RagService",
    "SearchResult",
    "SessionManager",
    "__version__",
    "analyze",
]

from __future__ import annotations

import ragls

SPEC_NAMES = {
    "RagService",
    "SessionManager",
    "IndexStatus",
    "IndexProgress",
    "DocumentInfo",
    "Document",
    "SearchResult",
    "KnowledgeBase",
    "InMemoryKnowledgeBase",
    "KnowledgeBaseStream",
    "BM25Stream",
    "HybridRetriever",
    "analyze",
    "FileIndexer",
    "FileIngestionService",
    "Limits",
    "KnowledgeSourceConfig",
    "DocumentFormat",
    "CodeChunker",
    "NormalizedDocumentChunker",
}


def test_spec_names_are_importable_from_the_package() -> None:
    missing = {name for name in SPEC_NAMES if not hasattr(ragls, name)}
    assert missing == set()
    assert set(ragls.__all__) >= SPEC_NAMES

"""The retrieval core: analyzer, BM25, TF-IDF knowledge base, fusion and the context fence.

Standard library plus numpy: postings are compact array segments (``postings``), queries are
scored over them with exact MaxScore pruning (``pruning``), TF-IDF norms are kept incrementally
(``tfidf_norms``) and large commits are staged as arrays (``batches``). Nothing here knows
about files, sessions or the daemon.
"""

from __future__ import annotations

from ragls.core.analyzer import SynonymTable, analyze
from ragls.core.bm25 import BM25Parameters, BM25Stats, BM25Stream
from ragls.core.documents import Document, RetrievalStream, SearchResult
from ragls.core.fusion import HybridRetriever, HybridRetrieverBuilder
from ragls.core.knowledge_base import InMemoryKnowledgeBase, KnowledgeBase, KnowledgeBaseStream
from ragls.core.prompt import escape_xml, render_context_prompt
from ragls.core.validation import MAX_QUERY_CHARS, MAX_TOP_K

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "BM25Parameters",
    "BM25Stats",
    "BM25Stream",
    "Document",
    "HybridRetriever",
    "HybridRetrieverBuilder",
    "InMemoryKnowledgeBase",
    "KnowledgeBase",
    "KnowledgeBaseStream",
    "RetrievalStream",
    "SearchResult",
    "SynonymTable",
    "analyze",
    "escape_xml",
    "render_context_prompt",
]

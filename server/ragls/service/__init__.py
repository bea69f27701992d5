"""The service layer: one RagService per session, the SessionManager and the chat binding."""

from __future__ import annotations

from ragls.service.chat import ChatKnowledge, KnowledgeType, SessionCorpus
from ragls.service.rag_service import RagService
from ragls.service.session.sessions import SessionManager
from ragls.service.status import DocumentInfo, IndexProgress, IndexStatus

__all__ = [
    "ChatKnowledge",
    "DocumentInfo",
    "IndexProgress",
    "IndexStatus",
    "KnowledgeType",
    "RagService",
    "SessionCorpus",
    "SessionManager",
]

"""Documents added through the API (``rag/addDocument``): searched with the indexed chunks,
kept across re-indexing, redacted like them."""

from __future__ import annotations

from collections.abc import Mapping

from ragls.core.documents import Document, IndexedStream
from ragls.service.documents import document_info, new_added_document, redacted_document
from ragls.service.session_core import SessionCore
from ragls.service.status import (
    DocumentInfo,
)


class AddedDocuments(SessionCore):
    """The documents added to one session (a part of RagService)."""

    def add_document(self, content: str, metadata: Mapping[str, str] | None = None) -> str:
        """Add a document to the session's corpus; returns its new unique id."""
        document = new_added_document(content, metadata)
        if self._last_config is None or self._last_config.detect_secrets:
            document = redacted_document(document)
        with self._commit_lock:
            self._stores.knowledge_base.add(document)
            done: list[IndexedStream] = []
            try:
                for stream in self._stores.indexed():
                    stream.add(document)
                    done.append(stream)
            except BaseException:
                for stream in done:
                    stream.remove(document.id)
                self._stores.knowledge_base.remove(document.id)
                raise
            self._added[document.id] = document
        self._changed()
        return document.id

    def list_documents(self) -> list[DocumentInfo]:
        """The documents added with add_document (never indexed chunks), oldest first."""
        with self._commit_lock:
            added = list(self._added.values())
        return [document_info(document) for document in added]

    def get_document(self, document_id: str) -> Document | None:
        """Any document of the corpus, added or indexed; None if there is none with that id."""
        if not isinstance(document_id, str):
            return None
        return self._stores.knowledge_base.get(document_id)

    def remove_document(self, document_id: str) -> bool:
        """Remove an added document; False for unknown ids and for indexed chunks (a re-index
        owns those)."""
        if not isinstance(document_id, str):
            return False
        with self._commit_lock:
            if self._added.pop(document_id, None) is None:
                return False
            self._stores.knowledge_base.remove(document_id)
            for stream in self._stores.indexed():
                stream.remove(document_id)
        self._changed()
        return True

"""The state every part of a session's service shares (:class:`SessionCore`).

:class:`ragls.service.rag_service.RagService` is assembled from parts, one concern each:
index runs (:mod:`ragls.service.indexing`), documents added through the API
(:mod:`ragls.service.added`) and the stored generation (:mod:`ragls.service.stored`). Each
part declares here what it reads of the others; RagService sets it all in its constructor.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence

from ragls.core.documents import Document
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.indexer import FileIndexer, IndexReport
from ragls.ingest.partial import PartialCommits
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import Pipeline
from ragls.service.status import (
    IndexProgress,
    IndexStatus,
)
from ragls.service.streams import SessionStreams


class SessionCore:
    """The attributes and hooks the parts of a RagService share (see the module docstring)."""

    _pipeline: Pipeline
    _stores: SessionStreams
    _index_lock: threading.Lock
    _commit_lock: threading.Lock
    _added: dict[str, Document]
    _status: IndexStatus
    _indexer: FileIndexer
    _last_report: IndexReport | None
    _last_config: KnowledgeSourceConfig | None
    _tracked_in_skipped: dict[str, int]
    _progress: IndexProgress | None
    _persistence: Persistence | None
    _partial_commits: PartialCommits | None

    def _changed(self) -> None:
        """The index in memory changed (RagService saves it through its persistence)."""
        raise NotImplementedError

    def _source_config(
        self,
        path: str | os.PathLike[str],
        include: Sequence[str],
        exclude: Sequence[str],
        format: DocumentFormat,
        default_skips: Iterable[str] | None,
        detect_secrets: bool,
        secret_names: Sequence[str],
    ) -> KnowledgeSourceConfig:
        raise NotImplementedError

    def _warm_start(self, persistence: Persistence, config: KnowledgeSourceConfig) -> None:
        raise NotImplementedError

    def get_status(self) -> IndexStatus:
        raise NotImplementedError

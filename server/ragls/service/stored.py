"""A session's stored generation (SPEC §11): loaded before the first run reconciles it,
exported and saved after each change."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.service.memory import LARGE_COMMIT_CHUNKS, collection_paused, release_free_memory
from ragls.service.persistence import snapshot
from ragls.service.persistence.link import Persistence
from ragls.service.session_core import SessionCore
from ragls.service.status import (
    IndexStatus,
)
from ragls.store.interface import Snapshot

log = logging.getLogger(__name__)


class StoredGeneration(SessionCore):
    """The stored generation of one session (a part of RagService)."""

    @property
    def persistence(self) -> Persistence | None:
        return self._persistence

    def warm_start(
        self,
        path: str | os.PathLike[str],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        format: DocumentFormat = DocumentFormat.AUTO,
        default_skips: Iterable[str] | None = None,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
    ) -> bool:
        """Load the stored generation of ``path`` (with the selectors of
        :meth:`index_directory`, which its configuration fingerprint includes) without
        reconciling it; True if one was loaded. The first :meth:`index_directory` does this by
        itself before it reconciles; a caller uses this to answer from the stored generation
        while the reconciling run is still to come. Only an empty service loads."""
        config = self._source_config(
            path, include, exclude, format, default_skips, detect_secrets, secret_names
        )
        persistence = self._persistence
        with self._index_lock:
            if persistence is None or persistence.attempted_load:
                return False
            self._warm_start(persistence, config)
            return persistence.loaded_generation is not None

    def _config_key(self, config: KnowledgeSourceConfig) -> str:
        return snapshot.config_key(config, self._indexer.limits, self._stores.bounds())

    def _warm_start(self, persistence: Persistence, config: KnowledgeSourceConfig) -> None:
        """Load the stored generation of ``config``'s root into this (empty) service before its
        first run reconciles it; anything that does not fit is refused and rebuilt."""
        if self._status.generation or len(self._stores.knowledge_base):
            persistence.attempted_load = True
            return  # not empty: the index in memory is newer than anything stored
        with collection_paused():  # hundreds of thousands of new objects, none of them garbage
            result = persistence.load(self._config_key(config))
            if result.snapshot is None:
                return
            self._install(persistence, config, result.snapshot)

    def _install(
        self, persistence: Persistence, config: KnowledgeSourceConfig, stored: Snapshot
    ) -> None:
        try:
            state = snapshot.from_snapshot(stored)
            if state.root != str(config.path) and persistence.store.shared:
                state = snapshot.relocated(state, str(config.path))
            if state.root != str(config.path):
                raise ValueError(f"it is the index of {state.root}, not of {config.path}")
            with self._commit_lock:
                self._restore_state(state)
        except Exception as error:  # whatever the stored parts hold, the files are the fallback
            with self._commit_lock:
                self._reset_stores()
            persistence.refused(str(error) or type(error).__name__)
            return
        persistence.loaded(state.generation)
        log.info(
            "%s: loaded generation %d (%d chunks) from %s",
            config.path,
            state.generation,
            len(state.documents),
            persistence.store.location,
        )

    def _restore_state(self, state: snapshot.ServiceState) -> None:
        """Install ``state`` (commit lock held; raises if it does not fit)."""
        documents = {document.id: document for document in state.documents}
        # The generation first: searches take no lock, and an answer from a store restored a
        # moment ago is an answer of the stored generation, never of "generation 0" (SPEC §11).
        self._status = snapshot.status_from(state.status, state.generation)
        self._stores.restore_state(state.streams, documents, state.documents)
        root = Path(state.root) if state.root else None
        if root is not None:
            self._indexer.restore_records(
                root, state.records, state.skips, documents, state.symbols, state.marked
            )
        self._added = {i: documents[i] for i in state.added}
        self._last_config = None if state.source is None else snapshot.source_config(state.source)
        self._status = dataclasses.replace(
            snapshot.status_from(state.status, state.generation),
            redacted=MappingProxyType(self._indexer.redactions),
            windowed_languages=MappingProxyType(self._indexer.windowed_languages),
        )
        self._tracked_in_skipped = dict(self._status.tracked_in_skipped)

    def _reset_stores(self) -> None:
        self._stores.clear()
        self._added.clear()
        self._indexer.forget()
        self._last_config = None
        self._status = IndexStatus()

    def export_state(self) -> snapshot.ServiceState:
        """The committed generation as plain values (SPEC §11); waits for a running run."""
        with self._index_lock, self._commit_lock:
            root, records, skips = self._indexer.export_records()
            symbols = self._indexer.export_symbols()
            streams = self._stores.export_state()
            config = self._last_config
            return snapshot.ServiceState(
                generation=self._status.generation,
                documents=self._stores.knowledge_base.list(),
                added=list(self._added),
                streams=streams,
                root=None if root is None else str(root),
                records=records,
                skips=skips,
                status=snapshot.status_fields(self._status),
                source=None if config is None else snapshot.source_fields(config),
                symbols=symbols,
            )

    def export_snapshot(self) -> Snapshot | None:
        """The committed generation as a store writes it, under the configuration key a start
        loads it with; None while nothing is indexed (after ``clear()`` too)."""
        config = self._last_config
        if config is None:
            return None
        return snapshot.to_snapshot(self.export_state(), self._config_key(config))

    def _save_generation(self) -> None:
        """Capture the committed generation and write it to the store (Persistence's save)."""
        persistence = self._persistence
        if persistence is None:
            return
        stored = self.export_snapshot()
        if stored is None:  # cleared: a start must not bring back what was cleared
            persistence.store.discard()
            return
        persistence.store.save(stored)
        if self._status.chunk_count >= LARGE_COMMIT_CHUNKS:
            # Encoding a generation makes buffers as large as the index, freed once written;
            # the heap would keep them (the daemon on the standard library: 304 MB resident
            # after its first save, 226 MB once they are returned).
            del stored
            release_free_memory()

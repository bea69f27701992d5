"""A session's index runs: indexing a folder as one new generation, explaining a path, the
indexer's settings (SPEC §8)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from ragls.errors import InvalidArgumentError, RaglsError
from ragls.ingest.admission import SkipReason
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.explain import explain_path
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.indexer import IndexReport, PartialReport
from ragls.ingest.limits import Limits
from ragls.service.memory import LARGE_COMMIT_CHUNKS, release_free_memory
from ragls.service.session_core import SessionCore
from ragls.service.status import (
    IndexProgress,
    IndexStatus,
    PathExplanation,
)
from ragls.service.tracked import tracked_counts


class IndexRuns(SessionCore):
    """Index runs of one session (a part of RagService)."""

    def index_directory(
        self,
        path: str | os.PathLike[str],
        progress: Callable[[IndexProgress], None] | None = None,
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        format: DocumentFormat = DocumentFormat.AUTO,
        default_skips: Iterable[str] | None = None,
        changed_paths: Iterable[str | os.PathLike[str]] | None = None,
        cancelled: Callable[[], bool] | None = None,
        force: bool = False,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
        on_partial: Callable[[IndexStatus], None] | None = None,
    ) -> IndexStatus:
        """Index the directory at ``path`` as one new generation and return the new status.

        ``changed_paths`` limits the run to those paths (files or directories, absolute or
        relative to ``path``) with the same guarantees; ``force`` drops the fingerprints first.
        Runs of one session take turns. A refused, cancelled or failed run raises (an
        :class:`~ragls.errors.RaglsError`) and leaves the previous generation in place.
        A cold run commits partial generations on the way (see the module docstring);
        ``on_partial`` hears the status of each once searches answer from it.
        """
        config = self._source_config(
            path, include, exclude, format, default_skips, detect_secrets, secret_names
        )
        with self._index_lock:
            persistence = self._persistence
            if persistence is not None and not persistence.attempted_load and not force:
                self._warm_start(persistence, config)
            if force:
                self._indexer.clear_hashes()

            def report(done: int, total: int, current: str) -> None:
                tick = IndexProgress(done, total, current)
                self._progress = tick
                if progress is not None:
                    progress(tick)

            before = self._status

            def coming(partial: PartialReport) -> None:
                # Before the swap: an answer may say partial about a generation not yet
                # swapped in, never whole about a partial one (the first partial commit).
                self._status = dataclasses.replace(
                    before,
                    file_count=partial.file_count,
                    chunk_count=partial.chunk_count,
                    last_index_time=datetime.now(UTC),
                    indexed_path=str(partial.root),
                    generation=before.generation + 1,  # the number the run will commit
                    last_error=None,
                    partial=IndexProgress(partial.files_done, partial.total_files, ""),
                )

            def live(partial: PartialReport) -> None:
                if on_partial is not None:
                    on_partial(self.get_status())

            self._progress = IndexProgress(0, 0, "")
            try:
                result = self._indexer.index(
                    config,
                    self._stores.knowledge_base,
                    None,
                    streams=self._stores.indexed(),
                    progress=report,
                    cancelled=cancelled,
                    changed_paths=changed_paths,
                    commit_lock=self._commit_lock,
                    partial=self._partial_commits,
                    on_partial=live,
                    before_partial=coming,
                )
            except BaseException as error:
                # Partial generations were withdrawn: the status is the previous one's again.
                self._status = before
                if isinstance(error, RaglsError):
                    self._status = dataclasses.replace(before, last_error=str(error))
                raise
            finally:
                self._progress = None
            self._last_report = result
            self._last_config = config
            if changed_paths is None:  # a full run: ask git once about skipped directories
                self._tracked_in_skipped = tracked_counts(
                    result.root,
                    (
                        skip.path
                        for skip in result.skipped
                        if skip.reason is SkipReason.DEFAULT_SKIP
                        and (result.root / skip.path).is_dir()
                    ),
                )
            if result.chunks_added + result.chunks_removed >= LARGE_COMMIT_CHUNKS:
                release_free_memory()
            self._status = IndexStatus(
                file_count=result.file_count,
                chunk_count=result.chunk_count,
                last_index_time=datetime.now(UTC),
                indexed_path=str(result.root),
                generation=before.generation + 1,
                skipped=MappingProxyType(self._indexer.skip_reasons),
                errors=tuple(result.errors),
                tracked_in_skipped=MappingProxyType(dict(self._tracked_in_skipped)),
                redacted=MappingProxyType(self._indexer.redactions),
                windowed_languages=MappingProxyType(self._indexer.windowed_languages),
            )
            # Saved when what answers changed, and when a file was re-read with the same
            # content (a touch, a checkout back and forth): its new stat record must reach the
            # store too, or every later start would read the file again, forever.
            if (
                result.chunks_added
                or result.chunks_removed
                or result.files_removed
                or result.files_refreshed
            ):
                self._changed()
        return self.get_status()

    def explain_path(self, path: str | os.PathLike[str]) -> PathExplanation:
        """Whether ``path`` (absolute, or relative to the indexed root) is indexed, and if not,
        why: the admission check of :mod:`ragls.ingest.explain` against the last run's source,
        then what the current generation holds for it."""
        config = self._last_config
        if config is None:
            raise InvalidArgumentError("nothing is indexed in this session yet; index it first")
        found = explain_path(self._indexer.ingestion, config, path)
        chunks = self._indexer.chunk_count_of(found.path)
        if chunks:
            return PathExplanation(found.path, True, chunks, format=found.format)
        if not found.admitted:
            return PathExplanation(found.path, False, 0, found.reason, found.detail)
        if found.chunks == 0 and found.format is not None:  # a file (a directory has none)
            return PathExplanation(found.path, False, 0, "empty", "the file has no text to chunk")
        # The file as it is now would be indexed (explain ran the indexer's pipeline on it),
        # so whatever the last run recorded for it is out of date.
        detail = "admitted, but not in the current generation yet: an index run is pending"
        return PathExplanation(found.path, False, 0, "pending", detail, found.format)

    @property
    def last_report(self) -> IndexReport | None:
        """The report of the last committed index run (skips with paths, work counters)."""
        return self._last_report

    def set_limits(self, limits: Limits) -> None:
        """Use ``limits`` from the next index run on (waits for a running one)."""
        with self._index_lock:
            self._indexer.set_limits(limits)

    def set_worker_niceness(self, niceness: int) -> None:
        """The CPU niceness of the indexing worker processes from the next run on (0: this
        process's priority; see ``ragls.ingest.parallel``)."""
        with self._index_lock:
            self._indexer.worker_niceness = niceness

    def indexed_files(self) -> list[str]:
        """The files of the current generation (POSIX paths relative to the indexed root)."""
        with self._commit_lock:
            return self._indexer.indexed_files()

    def clear_hashes(self) -> None:
        """Forget every fingerprint so the next run re-reads and re-chunks every file."""
        with self._index_lock:
            self._indexer.clear_hashes()

    @staticmethod
    def _source_config(
        path: str | os.PathLike[str],
        include: Sequence[str],
        exclude: Sequence[str],
        format: DocumentFormat,
        default_skips: Iterable[str] | None,
        detect_secrets: bool = True,
        secret_names: Sequence[str] = (),
    ) -> KnowledgeSourceConfig:
        if not isinstance(path, str | os.PathLike):
            raise InvalidArgumentError(f"path must be a path string, got {type(path).__name__}")
        root = Path(path).expanduser()
        if not root.exists():
            raise InvalidArgumentError(f"path {str(root)!r} does not exist")
        if not root.is_dir():
            raise InvalidArgumentError(f"path {str(root)!r} is not a directory")
        config = KnowledgeSourceConfig(
            root.resolve(),
            tuple(include),
            tuple(exclude),
            format,
            detect_secrets=detect_secrets,
            secret_names=tuple(secret_names),
        )
        if default_skips is not None:
            config = dataclasses.replace(config, default_skips=frozenset(default_skips))
        return config

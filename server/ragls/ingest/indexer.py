"""FileIndexer: incremental index runs that commit whole generations (SPEC §8).

A run discovers the source (or only the changed paths the watcher passes), decides each file with
its fingerprint, stages the new generation and swaps it into the knowledge base, BM25Stream and
any further streams (the workspace pipeline's code stream) together; if a stream's swap fails,
the swaps already made are undone, latest first. Guarantees:

* A rejected source (a per-source cap), a cancellation or a failure while ingesting or committing
  leaves the previous generation untouched (the indexer's own records included).
* Unchanged files keep their chunks without being read (stat pre-check) or re-chunked
  (fingerprint). A file that cannot be read, or whose extraction fails, keeps its previous chunks
  and is reported; files gone, renamed, newly ignored or outside the root lose theirs.
* A changed-paths run costs work proportional to the paths given: it reads only those files (and
  the ignore files of their ancestors), a directory path being walked below it only.
* ``clear_hashes()`` forgets every fingerprint, so the next run re-reads and re-chunks everything.
* A cold run (nothing committed yet) given a :class:`~ragls.ingest.partial.PartialCommits`
  cadence commits *partial generations* while it reads, each a whole generation of the files
  read so far swapped in by the same ``_commit``; its final commit adds the rest. If the run is
  refused, cancelled or fails after a partial commit, the partial generations are withdrawn (one
  more swap back to what the stores held before the run), so the guarantee above holds: the
  previous generation is what stays (SPEC §8).

A run with worker processes grows the process's heap by millions of objects (chunks, their
metadata, records, symbols), and every full pass of Python's cyclic collector walks all of them
again: at 16x the standard library, 17 full passes over up to 2 million objects took about 10 s
of the main process's time. Each time the run hands a group of documents to the code stream it
freezes what the process holds (``gc.freeze``: later passes skip those objects), and the run
unfreezes them when it ends, so that the collector sees the whole heap again from then on.
Objects are still freed as they always are (reference counts); only garbage in cycles among the
run's objects waits for the end of the run.
"""

from __future__ import annotations

import gc
import logging
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from ragls.core import spill
from ragls.core.batches import EncodedBatch, analyze_documents
from ragls.core.bm25 import BM25Stream
from ragls.core.documents import Document, IndexedStream, PreparingStream
from ragls.core.knowledge_base import INCREMENTAL_MAX_DOCUMENTS, KnowledgeBase
from ragls.core.symbols import NO_SYMBOLS, FileSymbols, SymbolIndex
from ragls.errors import IndexCancelledError, IndexCommitError, IndexRejectedError
from ragls.ingest.admission import Admission, Skipped, SkipReason
from ragls.ingest.chunking.windows import windowed_languages
from ragls.ingest.config import KnowledgeSourceConfig, relative_path
from ragls.ingest.fingerprint import FileRecord
from ragls.ingest.generation import difference
from ragls.ingest.ignore.defaults import is_ignore_file_name
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from ragls.ingest.parallel import WORKER_NICENESS, default_workers, in_workers, process_all
from ragls.ingest.partial import PartialCommits
from ragls.ingest.pipeline import Processed, Status
from ragls.ingest.records import FileRecords, Skips, StagedRecords
from ragls.ingest.secrets import markers_in
from ragls.ingest.walk import Candidate, walk

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int, str], None]
# Documents handed to a PreparingStream at a time during a run with worker processes: each
# group is encoded while the workers read on, instead of all at the commit after them.
PREPARE_DOCUMENTS = 4_096
# A file record as plain values: path, fingerprint, size, mtime, ctime, inode, read time (ns),
# its chunk ids, and (reason, detail) if its content was refused.
RecordState = tuple[str, str, int, int, int, int, int, list[str], tuple[str, str] | None]


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one committed run did; ``files_read`` and ``files_chunked`` measure its work.
    ``files_refreshed`` counts files read whose content matched their fingerprint (a touch, a
    checkout back and forth): their chunks stay, only their stat records are new."""

    root: Path
    file_count: int
    chunk_count: int
    total_bytes: int
    files_read: int
    files_chunked: int
    files_removed: int
    chunks_added: int
    chunks_removed: int
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cut_lines: int = 0
    changed_paths_run: bool = False
    files_refreshed: int = 0


@dataclass(frozen=True, slots=True)
class PartialReport:
    """A partial generation a cold run committed: it holds ``file_count`` files and
    ``chunk_count`` chunks, the first ``files_done`` of the run's ``total_files``."""

    root: Path
    files_done: int
    total_files: int
    file_count: int
    chunk_count: int


class FileIndexer:
    def __init__(
        self,
        limits: Limits | None = None,
        ingestion: FileIngestionService | None = None,
        *,
        workers: int | None = None,
        worker_niceness: int = WORKER_NICENESS,
    ) -> None:
        """``workers``: processes for extraction and chunking in big runs (None: one per core,
        at most 8; 1: always in the calling thread), run at ``worker_niceness`` or lower
        priority (0: the caller's). See ``ragls.ingest.parallel``."""
        self.ingestion = ingestion if ingestion is not None else FileIngestionService(limits)
        self.limits = self.ingestion.limits
        self.workers = default_workers() if workers is None else max(1, workers)
        self.worker_niceness = worker_niceness
        self._root: Path | None = None
        self._records = FileRecords()
        self._skips = Skips()  # the committed generation's, by path
        self._redactions: Counter[str] = Counter()  # masked secrets the generation holds
        self._windowed: Counter[str] = Counter()  # files chunked without a grammar, by language
        self._symbols = SymbolIndex()  # the committed generation's definitions and references

    def set_limits(self, limits: Limits) -> None:
        """Admission caps for the next runs; the fingerprints stay (they record the chunk cap,
        so files are re-chunked only if that changed)."""
        self.ingestion = FileIngestionService(limits, self.ingestion.chunker)
        self.limits = limits

    @property
    def root(self) -> Path | None:
        return self._root

    def clear_hashes(self) -> None:
        """Forget every fingerprint: the next run reads and re-chunks every file."""
        self._records = FileRecords(
            {
                path: FileRecord(
                    "", -1, -1, -1, -1, 0, record.documents, record.skip, record.symbols
                )
                for path, record in self._records.items()
            }
        )

    def forget(self) -> None:
        """Forget everything (the stores were cleared)."""
        self._root = None
        self._records = FileRecords()
        self._skips = Skips()
        self._redactions = Counter()
        self._windowed = Counter()
        self._symbols.clear()

    @property
    def symbols(self) -> SymbolIndex:
        """The committed generation's definitions and references, by file and by name; it
        changes in place as runs commit (a query sees one whole commit or the next)."""
        return self._symbols

    @property
    def redactions(self) -> dict[str, int]:
        """Secrets masked in the current generation's chunks, by rule (ragls.ingest.secrets)."""
        return dict(sorted(self._redactions.items()))

    @property
    def skip_reasons(self) -> dict[str, int]:
        """How many paths the current generation skipped, by reason, sorted by reason."""
        return dict(sorted(self._skips.reasons.items()))

    @property
    def windowed_languages(self) -> dict[str, int]:
        """Files of the current generation chunked as line windows for want of a grammar, by
        language (ragls.ingest.chunking.windows)."""
        return dict(sorted(self._windowed.items()))

    def indexed_documents(self) -> list[Document]:
        return [document for record in self._records.values() for document in record.documents]

    def chunk_count_of(self, relative: str) -> int | None:
        """How many chunks the current generation holds for the file (None: not held)."""
        record = self._records.get(relative)
        return None if record is None or record.skip is not None else len(record.documents)

    def documents_of(self, relative: str) -> tuple[Document, ...]:
        """The committed generation's chunks of one file (empty: not held), as indexing read
        them (secrets masked): what structure answers quote source lines from."""
        record = self._records.get(relative)
        return () if record is None or record.skip is not None else tuple(record.documents)

    def indexed_files(self) -> list[str]:
        """Paths (relative to the root) of the files the current generation holds, sorted."""
        return sorted(path for path, record in self._records.items() if record.skip is None)

    # -- persistence (SPEC §11) ----------------------------------------------------------------

    def export_records(self) -> tuple[Path | None, list[RecordState], list[tuple[str, str, str]]]:
        """(root, one plain tuple per file record, the recorded skips as (path, reason,
        detail)): what a store keeps so that a warm start re-reads only changed files."""
        records = [
            (
                path,
                record.fingerprint,
                record.size,
                record.mtime_ns,
                record.ctime_ns,
                record.inode,
                record.read_ns,
                [document.id for document in record.documents],
                None if record.skip is None else (record.skip.reason.value, record.skip.detail),
            )
            for path, record in self._records.items()
        ]
        skips = [(path, skip.reason.value, skip.detail) for path, skip in self._skips.items()]
        return self._root, records, skips

    def export_symbols(self) -> dict[str, FileSymbols]:
        """Every file's definitions and references (files without any left out)."""
        return {
            path: symbols for path in self._symbols.paths() if (symbols := self._symbols.get(path))
        }

    def restore_records(
        self,
        root: Path,
        records: Sequence[RecordState],
        skips: Sequence[tuple[str, str, str]],
        documents: Mapping[str, Document],
        symbols: Mapping[str, FileSymbols] | None = None,
        marked: Collection[str] | None = None,
    ) -> None:
        """Remember what :meth:`export_records` gave, the chunks taken from ``documents``, the
        symbols from ``symbols`` (:meth:`export_symbols`; KeyError, ValueError or TypeError if
        they do not fit; nothing changes then). ``marked``, when given, holds the ids of every
        document whose text holds a masked secret's marker: only those are read to count
        them."""
        symbols = symbols or {}
        restored: dict[str, FileRecord] = {}
        for path, digest, size, mtime, ctime, inode, read_ns, ids, skip in records:
            refused = None if skip is None else Skipped(path, SkipReason(skip[0]), skip[1])
            chunks = tuple(documents[i] for i in ids)
            restored[path] = FileRecord(
                digest,
                size,
                mtime,
                ctime,
                inode,
                read_ns,
                chunks,
                refused,
                symbols.get(path, NO_SYMBOLS),
            )
        kept = {path: Skipped(path, SkipReason(reason), detail) for path, reason, detail in skips}
        self._root, self._records, self._skips = root, FileRecords(restored), Skips(kept)
        self._redactions = markers_in(
            d
            for record in restored.values()
            for d in record.documents
            if marked is None or d.id in marked
        )
        # A file's chunks share its format and language: its first chunk says (a restart read
        # every chunk's metadata for this, 55,000 at 1x).
        self._windowed = windowed_languages(
            record.documents[0] for record in restored.values() if record.documents
        )
        self._symbols.clear()
        self._symbols.replace((path, record.symbols) for path, record in restored.items())

    def index(
        self,
        config: KnowledgeSourceConfig,
        knowledge_base: KnowledgeBase,
        bm25: BM25Stream | None,
        *,
        streams: Sequence[IndexedStream] = (),
        progress: ProgressCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
        changed_paths: Iterable[str | os.PathLike[str]] | None = None,
        commit_lock: AbstractContextManager[object] | None = None,
        partial: PartialCommits | None = None,
        on_partial: Callable[[PartialReport], None] | None = None,
        before_partial: Callable[[PartialReport], None] | None = None,
    ) -> IndexReport:
        """One run; see the module docstring for its guarantees. ``commit_lock`` is held only
        while the stores are swapped (the service uses it to order commits with added documents).
        ``streams`` are swapped after BM25 (None: a pipeline without one), in order, with the
        same undo. ``partial``: the cadence of partial commits if this run is cold (nothing
        committed, not a changed-paths run; ignored otherwise); ``before_partial`` hears each one
        just before it is swapped in (a caller's "answers are partial" flag must never lag the
        stores), ``on_partial`` once it is live.
        """
        root = config.path
        if not root.is_dir():
            raise IndexRejectedError(f"path {str(root)!r} is not a directory")
        admission = self.ingestion.admission(config)
        same_root = self._root == root
        committed = self._records  # what the stores hold now, whatever its root
        previous = committed if same_root else FileRecords()  # what this run may reuse
        gone: set[str] = set()
        # A changed-paths run changes the committed records and skips in place, below its
        # scopes only, once it commits (ragls.ingest.records); any other run makes new ones.
        changed_run = changed_paths is not None and same_root
        void_skips: list[str] = []
        if changed_paths is not None and same_root:
            candidates, skipped, gone, scopes = self._changed_scope(
                admission, previous, changed_paths
            )
            staged = previous.stage()
            for path in gone:
                del staged[path]
            void_skips = [path for scope in scopes for path in self._skips.below(scope)]
        else:
            discovery = self.ingestion.discover(config, admission)
            candidates, skipped = discovery.candidates, discovery.skipped
            staged = FileRecords().stage()
        for candidate in candidates:
            staged.pop(candidate.path, None)
        self._check_source_caps(candidates, staged)

        errors: list[str] = []
        files_read = files_chunked = files_refreshed = cut_lines = 0
        total = len(candidates)
        static = self.ingestion.static_key(config)
        stores = [*([bm25] if bm25 is not None else []), *streams]
        lock = commit_lock if commit_lock is not None else nullcontext()
        cold = partial is not None and not committed and changed_paths is None
        cadence = partial.start(len(candidates)) if cold and partial is not None else None
        # A cold run's partial generations: the records they hold, and the records read since.
        shown: dict[str, FileRecord] = {}
        fresh: list[FileRecord] = []

        def trusted(prior: FileRecord | None, candidate: Candidate) -> bool:
            """Unchanged without reading it: same stat, made under this configuration."""
            return (
                prior is not None
                and prior.stat_unchanged(candidate)
                and prior.fingerprint.endswith(static)
            )

        pending = [
            (candidate, prior.fingerprint if prior is not None else None)
            for candidate in candidates
            if not trusted(prior := previous.get(candidate.path), candidate)
        ]
        results = process_all(self.ingestion, config, pending, self.workers, self.worker_niceness)
        # While worker processes read, the streams that can encode ahead are handed the new
        # documents in the order the commits will add them (PreparingStream).
        parallel = in_workers(self.workers, len(pending))
        preparing = [s for s in stores if isinstance(s, PreparingStream)] if parallel else []
        unprepared: list[Document] = []
        readable: list[Document] = []  # the same, their texts still in memory

        def prepare_all() -> None:
            """Hand the documents not prepared yet over (before a commit, so that the commit's
            documents are whole prepared groups), then set what the run holds so far aside from
            the cyclic collector (see the module doc)."""
            for stream in preparing:
                stream.prepare(unprepared, readable)
            unprepared.clear()
            readable.clear()
            if preparing:
                gc.freeze()

        try:
            for position, candidate in enumerate(candidates, start=1):
                if cancelled is not None and cancelled():
                    raise IndexCancelledError(
                        f"index run cancelled after {position - 1}/{total} files"
                    )
                prior = previous.get(candidate.path)
                if prior is not None and trusted(prior, candidate):
                    record: FileRecord | None = prior
                    if prior.skip is not None:
                        _report_kept(prior.skip, skipped, errors)
                else:
                    processed = next(results)
                    record = _apply(processed, candidate, prior, skipped, errors)
                    if processed.status not in (Status.REFUSED, Status.UNREADABLE):
                        files_read += 1
                    if processed.status is Status.CHUNKED:
                        files_chunked += 1
                        if preparing and record is not None:
                            unprepared.extend(record.documents)
                            readable.extend(processed.documents)  # not read back (spill)
                            if len(unprepared) >= PREPARE_DOCUMENTS:
                                prepare_all()
                    if processed.status is Status.SAME:
                        files_refreshed += 1
                    cut_lines += processed.cut_lines
                if record is not None:
                    staged[candidate.path] = record
                    if cadence is not None:
                        fresh.append(record)
                if progress is not None:
                    progress(position, total, candidate.path)
                if cadence is not None and cadence.due(position):
                    coming = PartialReport(root, position, total, staged.files, staged.chunks)
                    if before_partial is not None:
                        before_partial(coming)
                    prepare_all()
                    self._commit_partial(knowledge_base, bm25, stores, lock, shown, fresh, staged)
                    cadence.committed(position)
                    if on_partial is not None:
                        on_partial(coming)

            chunks = staged.chunks
            if chunks > self.limits.max_chunks:
                raise IndexRejectedError(
                    f"source would hold {chunks} chunks, over the max_chunks cap of "
                    f"{self.limits.max_chunks}; the previous index stays"
                )
            touched = None
            if changed_run:
                touched = gone | {candidate.path for candidate in candidates}
            # After partial commits the stores hold ``shown``: the final commit adds the rest.
            base = shown if cadence is not None and cadence.commits else committed
            prepare_all()
            added, removed_ids, removed_docs = difference(base, staged, touched)
            analyzed = self._analysis(knowledge_base, bm25, added)
            with lock:
                self._commit(knowledge_base, stores, removed_ids, added, removed_docs, analyzed)
                records = staged.commit()  # a changed-paths run's: the committed ones, changed
                self._symbols.replace(_symbol_changes(self._symbols, records, touched))
        except BaseException:
            if shown:
                self._withdraw(knowledge_base, stores, lock, shown)
            raise
        finally:
            results.close()
            for stream in preparing:
                stream.drop_prepared()
            if preparing:
                gc.unfreeze()

        if shown:  # what the run's partial commits added counts as the run's too
            added = [d for record in shown.values() for d in record.documents] + added
        skips = self._skips if changed_run else Skips()
        for path in void_skips:
            skips.drop(path)
        for item in skipped:
            skips.put(item.path, item)
        if changed_run:
            files_removed = sum(1 for path in gone if path not in records)
        else:
            files_removed = sum(1 for path in committed if not same_root or path not in records)
        self._root, self._records, self._skips = root, records, skips
        self._redactions.update(markers_in(added))
        self._redactions.subtract(markers_in(removed_docs))
        self._redactions = +self._redactions  # drop rules down to zero
        # A changed file's documents are all removed and all added (generation.difference).
        self._windowed.update(windowed_languages(added))
        self._windowed.subtract(windowed_languages(removed_docs))
        self._windowed = +self._windowed
        return IndexReport(
            root=root,
            file_count=records.files,
            chunk_count=chunks,
            total_bytes=records.all_bytes,
            files_read=files_read,
            files_chunked=files_chunked,
            files_removed=files_removed,
            chunks_added=len(added),
            chunks_removed=len(removed_ids),
            skipped=list(skips.values()),
            errors=errors,
            cut_lines=cut_lines,
            changed_paths_run=changed_run,
            files_refreshed=files_refreshed,
        )

    # -- steps ---------------------------------------------------------------------------------

    def _changed_scope(
        self,
        admission: Admission,
        previous: FileRecords,
        changed_paths: Iterable[str | os.PathLike[str]],
    ) -> tuple[list[Candidate], list[Skipped], set[str], list[str]]:
        """Candidates to (re)process, skips, recorded paths whose records are void, and the
        scopes (paths relative to the root, "" for all of it) the run redoes."""
        root = admission.root
        candidates: dict[str, Candidate] = {}
        skipped: list[Skipped] = []
        gone: set[str] = set()
        scopes: list[str] = []
        for raw in changed_paths:
            relative = relative_path(root, raw)
            if relative is None:
                continue
            if is_ignore_file_name(relative.rsplit("/", 1)[-1]):
                relative = relative.rpartition("/")[0]  # its rules changed: redo its directory
            scopes.append(relative)
            gone.update(previous.below(relative))
            absolute = root / relative if relative else root
            if absolute.is_dir() and not absolute.is_symlink():
                verdict = admission.directory_path_verdict(relative)
                if verdict is not None:
                    skipped.append(verdict)
                    continue
                for item in walk(admission, relative):
                    if isinstance(item, Candidate):
                        candidates[item.path] = item
                    else:
                        skipped.append(item)
                continue
            found = self.ingestion.check_path(admission, relative)
            if isinstance(found, Candidate):
                candidates[found.path] = found
            elif found is not None:
                skipped.append(found)
        ordered = [candidates[path] for path in sorted(candidates)]
        return ordered, skipped, gone, scopes

    def _check_source_caps(self, candidates: list[Candidate], kept: StagedRecords) -> None:
        """The per-source caps count what will be read: files refused by name (binary
        extensions) or by size are skipped anyway and do not count; ``kept`` (the records
        staged besides the candidates) by their totals."""
        candidates = [
            c
            for c in candidates
            if c.size <= self.limits.max_file_bytes
            and self.ingestion.refuse_by_name(c.path) is None
        ]
        files = len(candidates) + kept.files
        if files > self.limits.max_files:
            raise IndexRejectedError(
                f"source has {files} files, over the max_files cap of {self.limits.max_files}; "
                "the previous index stays"
            )
        total = sum(c.size for c in candidates) + kept.file_bytes
        if total > self.limits.max_total_bytes:
            raise IndexRejectedError(
                f"source holds {total} bytes, over the max_total_bytes cap of "
                f"{self.limits.max_total_bytes}; the previous index stays"
            )

    @staticmethod
    def _analysis(
        knowledge_base: KnowledgeBase, bm25: BM25Stream | None, added: list[Document]
    ) -> EncodedBatch | None:
        """A large batch tokenized once for both stores, before the commit lock."""
        shared = bm25 is not None or knowledge_base.wants_analysis  # someone will read it
        large = len(added) > INCREMENTAL_MAX_DOCUMENTS
        return analyze_documents(added) if large and shared else None

    def _commit_partial(
        self,
        knowledge_base: KnowledgeBase,
        bm25: BM25Stream | None,
        stores: Sequence[IndexedStream],
        lock: AbstractContextManager[object],
        shown: dict[str, FileRecord],
        fresh: list[FileRecord],
        staged: Mapping[str, FileRecord],
    ) -> None:
        """Commit the records read since the last partial commit (a cold run's: nothing is
        removed), so the stores hold ``staged`` as it is now; ``shown`` becomes it."""
        added = [document for record in fresh for document in record.documents]
        chunks = sum(len(record.documents) for record in shown.values()) + len(added)
        if chunks > self.limits.max_chunks:  # refused now rather than after reading the rest
            raise IndexRejectedError(
                f"source would hold more than {chunks} chunks, over the max_chunks cap of "
                f"{self.limits.max_chunks}; the previous index stays"
            )
        analyzed = self._analysis(knowledge_base, bm25, added)
        with lock:
            self._commit(knowledge_base, stores, [], added, [], analyzed)
        shown.update(staged)
        fresh.clear()

    def _withdraw(
        self,
        knowledge_base: KnowledgeBase,
        stores: Sequence[IndexedStream],
        lock: AbstractContextManager[object],
        shown: dict[str, FileRecord],
    ) -> None:
        """Take a failed cold run's partial generations back out of the stores (SPEC §8: a
        refused, cancelled or failed run leaves the previous generation, here the one before
        the run); never raises, the run's own error is the one reported."""
        documents = [document for record in shown.values() for document in record.documents]
        try:
            with lock:
                self._commit(knowledge_base, stores, [d.id for d in documents], [], documents, None)
        except Exception:
            log.exception("withdrawing the partial generations of a failed run failed")
        shown.clear()

    @staticmethod
    def _commit(
        knowledge_base: KnowledgeBase,
        streams: Sequence[IndexedStream],
        removed_ids: list[str],
        added: list[Document],
        removed_docs: list[Document],
        analyzed: EncodedBatch | None,
    ) -> None:
        if not removed_ids and not added:
            return
        try:
            knowledge_base.replace_documents(removed_ids, added, analyzed)
        except Exception as error:
            raise IndexCommitError(f"knowledge base swap failed: {error}") from error
        done: list[IndexedStream] = []
        for stream in streams:
            try:
                stream.replace_documents(removed_ids, added, analyzed)
            except Exception as error:
                added_ids = [document.id for document in added]
                for committed in reversed(done):
                    committed.replace_documents(added_ids, removed_docs)
                knowledge_base.replace_documents(added_ids, removed_docs)
                name = "BM25" if isinstance(stream, BM25Stream) else f"stream {stream.name!r}"
                raise IndexCommitError(
                    f"{name} swap failed ({error}); the knowledge base was restored"
                ) from error
            done.append(stream)


def _apply(
    processed: Processed,
    candidate: Candidate,
    prior: FileRecord | None,
    skipped: list[Skipped],
    errors: list[str],
) -> FileRecord | None:
    """The file's record after ``processed``; reports its skip or error."""
    status = processed.status
    if processed.skip is not None and status is not Status.SAME:
        skipped.append(processed.skip)
    if status is Status.REFUSED:
        return None
    # A transient failure keeps what the file had; only say so when it had chunks.
    had_chunks = prior is not None and bool(prior.documents)
    kept = "; previous chunks kept" if had_chunks else ""
    if status is Status.UNREADABLE:
        detail = processed.skip.detail if processed.skip else ""
        errors.append(f"{candidate.path}: cannot be read ({detail}){kept}")
        return prior
    if status in (Status.FAILED, Status.INVALID):
        errors.append(_extraction_error(candidate.path, processed.skip) + kept)
        if status is Status.INVALID and not had_chunks:
            # Content that cannot be extracted (a truncated PDF, a notebook that is not JSON)
            # and no chunks to keep: recorded as a skip with its stat, so that later runs and
            # restarts trust it unread, as they do a binary file, until it changes. A file
            # that had chunks keeps them and is read again each run (it may be mid-write); an
            # extractor that raised (a bug) is tried again too.
            return _record(
                processed.digest, candidate, processed.size, processed.read_ns, (), processed.skip
            )
        return prior
    if status is Status.SAME and prior is not None:
        if prior.skip is not None:
            _report_kept(prior.skip, skipped, errors)
        return _record(
            processed.digest,
            candidate,
            processed.size,
            processed.read_ns,
            prior.documents,
            prior.skip,
            prior.symbols,
        )
    return _record(
        processed.digest,
        candidate,
        processed.size,
        processed.read_ns,
        spill.hold(processed.documents),  # texts into the page cache (ragls.core.spill)
        processed.skip,
        processed.symbols,
    )


def _report_kept(skip: Skipped, skipped: list[Skipped], errors: list[str]) -> None:
    """Report the skip of a file kept unchanged; one whose content could not be extracted is
    an error of this run too, as when it was read (its record was kept, not its reading)."""
    skipped.append(skip)
    if skip.reason is SkipReason.EXTRACT_FAILED:
        errors.append(_extraction_error(skip.path, skip))


def _extraction_error(path: str, skip: Skipped | None) -> str:
    """The error a file whose extraction failed reports (when read, and when kept unread)."""
    return f"{path}: {skip.detail if skip is not None else ''}"


def _record(
    digest: str,
    candidate: Candidate,
    size: int,
    read_ns: int,
    documents: tuple[Document, ...],
    skip: Skipped | None = None,
    symbols: FileSymbols = NO_SYMBOLS,
) -> FileRecord:
    return FileRecord(
        digest,
        size,
        candidate.mtime_ns,
        candidate.ctime_ns,
        candidate.inode,
        read_ns,
        documents,
        skip,
        symbols,
    )


def _symbol_changes(
    index: SymbolIndex, records: Mapping[str, FileRecord], touched: set[str] | None
) -> list[tuple[str, FileSymbols | None]]:
    """What the symbol index must change to hold ``records``' symbols: the ``touched`` paths
    of a changed-paths run, else every path whose symbols are not the ones it holds (a file
    kept unchanged keeps the very same object) and every path gone."""
    if touched is not None:
        return [
            (path, record.symbols if (record := records.get(path)) is not None else None)
            for path in touched
        ]
    changes: list[tuple[str, FileSymbols | None]] = [
        (path, None) for path in index.paths() if path not in records
    ]
    for path, record in records.items():
        held = index.get(path)
        if held is not record.symbols and (
            held is not None or record.symbols.definition_names or record.symbols.reference_names
        ):
            changes.append((path, record.symbols))
    return changes

"""Running the per-file pipeline in worker processes, where it pays (SPEC §8: use the second
core for extraction and chunking).

Extraction and chunking are CPU-bound Python (tree-sitter parsing included), so threads do not
help; processes do. Starting a worker costs an interpreter and the ragls imports (a few hundred
milliseconds), so workers are used only when at least ``PARALLEL_MIN_FILES`` files must be read
and more than one core is available; smaller runs (every watcher run, small repositories) stay in
the calling thread. Measured on the standard library (2,280 files, 55,050 chunks, 2 cores):
17.0 s serial, 11.7 s with two workers (medians of three cold runs).

Workers are plain subprocesses running ``ragls.ingest.worker.serve`` (not ``multiprocessing``, whose
spawn start method re-imports the caller's ``__main__``, which a library must not do to its
users). Each worker is fed batches by one thread of the caller; results are yielded in input
order. If a worker fails, the items it had not answered are processed in the calling thread, so a
broken pool never breaks a run.

Workers run at a lower CPU priority (niceness ``WORKER_NICENESS``, 10, unless the caller's is
higher already) so that a cold index of a large folder leaves the editor, the compiler and the
tests their share of the cores: they only lose time to work that wants the CPU. ``niceness=0``
keeps the caller's priority (the ``lowPriorityIndexing`` setting).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Generator, Sequence
from pathlib import Path

from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.pipeline import Processed, process_file
from ragls.ingest.walk import Candidate
from ragls.ingest.worker import read_message, write_message

log = logging.getLogger(__name__)

PARALLEL_MIN_FILES = 256
BATCH = 8
WORKER_NICENESS = 10

Work = tuple[Candidate, str | None]
# The worker's first lines lower its priority (never raise it), before the imports, which cost
# CPU too; a platform without os.nice or a refusal leaves it as it is.
# A worker runs in a process group of its own and ignores SIGINT: Ctrl-C on a terminal is the
# parent's to handle (it says "interrupted" and ends the run), and a worker whose parent is gone
# ends at its next read or write (ragls.ingest.worker.serve), without a traceback of its own.
_WORKER_MAIN = """import os, signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
try:
    os.nice(max(0, {niceness} - os.nice(0)))
except (AttributeError, OSError):
    pass
from ragls.ingest.worker import serve
serve()
"""


def default_workers() -> int:
    return max(1, min(len(os.sched_getaffinity(0)), 8))


def in_workers(workers: int, files: int) -> bool:
    """Whether :func:`process_all` runs ``files`` files in worker processes."""
    return workers > 1 and files >= PARALLEL_MIN_FILES


def process_all(
    ingestion: FileIngestionService,
    config: KnowledgeSourceConfig,
    work: Sequence[Work],
    workers: int,
    niceness: int = WORKER_NICENESS,
) -> Generator[Processed, None, None]:
    """``process_file`` over ``work``, in order, in worker processes when it pays (each at
    least at ``niceness``). Closing the generator early (cancellation) stops the workers."""
    if not in_workers(workers, len(work)):
        for candidate, prior in work:
            yield process_file(ingestion, config, candidate, prior)
        return
    pool = _Pool(ingestion, config, work, workers, niceness)
    try:
        for index, (candidate, prior) in enumerate(work):
            result = pool.result(index)
            yield (
                result if result is not None else process_file(ingestion, config, candidate, prior)
            )
    finally:
        pool.close()


class _Pool:
    def __init__(
        self,
        ingestion: FileIngestionService,
        config: KnowledgeSourceConfig,
        work: Sequence[Work],
        workers: int,
        niceness: int,
    ) -> None:
        self._work = work
        self._results: dict[int, Processed | None] = {}
        self._next_batch = 0
        self._closed = False
        self._condition = threading.Condition()
        chunker = ingestion.chunker
        setup = (
            ingestion.limits,
            (chunker.max_lines, chunker.max_chars, chunker.max_line_chars),
            config,
        )
        self._processes: list[subprocess.Popen[bytes]] = []
        self._threads: list[threading.Thread] = []
        environment = dict(os.environ)
        # The folder holding the ragls package (this file is ragls/ingest/parallel.py), found
        # without importing the package root, which would load every layer above ingest.
        package_root = str(Path(__file__).resolve().parents[2])
        environment["PYTHONPATH"] = os.pathsep.join(
            part for part in (package_root, environment.get("PYTHONPATH", "")) if part
        )
        for _ in range(workers):
            try:
                process = subprocess.Popen(
                    [sys.executable, "-c", _WORKER_MAIN.format(niceness=int(niceness))],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=environment,
                    process_group=0,  # the terminal's Ctrl-C is the parent's to handle
                )
            except OSError as error:
                log.warning("cannot start an ingestion worker (%s); continuing without it", error)
                continue
            self._processes.append(process)
            thread = threading.Thread(target=self._feed, args=(process, setup), daemon=True)
            self._threads.append(thread)
            thread.start()
        if not self._processes:
            self._fail_remaining()

    def _take_batch(self) -> tuple[int, list[Work]] | None:
        with self._condition:
            if self._closed or self._next_batch >= len(self._work):
                return None
            start = self._next_batch
            self._next_batch = min(start + BATCH, len(self._work))
            return start, list(self._work[start : self._next_batch])

    def _feed(self, process: subprocess.Popen[bytes], setup: object) -> None:
        assert process.stdin is not None and process.stdout is not None
        taken: tuple[int, list[Work]] | None = None
        try:
            write_message(process.stdin, setup)
            while (taken := self._take_batch()) is not None:
                write_message(process.stdin, taken[1])
                answer = read_message(process.stdout)
                if not isinstance(answer, list) or len(answer) != len(taken[1]):
                    raise OSError("ingestion worker stopped answering")
                with self._condition:
                    for offset, result in enumerate(answer):
                        self._results[taken[0] + offset] = result
                    self._condition.notify_all()
                taken = None
        except (OSError, EOFError, ValueError) as error:
            if not self._closed:
                log.warning("ingestion worker failed (%s); its files run in this process", error)
            with self._condition:
                if taken is not None:  # the batch it held is done here instead
                    for offset in range(len(taken[1])):
                        self._results[taken[0] + offset] = None
                if all(not t.is_alive() or t is threading.current_thread() for t in self._threads):
                    self._fail_remaining_locked()
                self._condition.notify_all()

    def _fail_remaining(self) -> None:
        with self._condition:
            self._fail_remaining_locked()
            self._condition.notify_all()

    def _fail_remaining_locked(self) -> None:
        for index in range(self._next_batch, len(self._work)):
            self._results[index] = None
        self._next_batch = len(self._work)

    def result(self, index: int) -> Processed | None:
        """The worker's result for item ``index``, or None if the caller must process it."""
        with self._condition:
            while index not in self._results:
                self._condition.wait(timeout=1.0)
                if index not in self._results and not any(t.is_alive() for t in self._threads):
                    self._fail_remaining_locked()
                    self._results.setdefault(index, None)
            return self._results.pop(index)

    def close(self) -> None:
        with self._condition:
            self._closed = True
        for process in self._processes:
            try:
                if process.stdin is not None:
                    process.stdin.close()
            except OSError:
                pass
        for process in self._processes:
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for thread in self._threads:
            thread.join(timeout=2)

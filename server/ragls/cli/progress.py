"""Progress of the CLI's index runs on stderr (``ragls index``, ``search``, ``context``, ``eval``).

Fed by the service's progress callback (``RagService.index_directory(path, progress)``, SPEC §7:
files done, total, current file). Where stderr is a terminal, a tqdm bar: files done/total,
rate, time left, the current file; it appears only once a run has lasted half a second (a warm
run from the stored index shows nothing; less if ``RAGLS_PROGRESS_SECONDS`` is less) and is
cleared at the end, before the summary. Where
stderr is not a terminal (CI logs, a pipe), a plain line at most every ``RAGLS_PROGRESS_SECONDS``
seconds (default 10; the first after as long), and one when the run ends if any was printed,
so a short run prints none. Off where the output must stay machine-readable (``--json``).
stdout never carries progress.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Never, TextIO

from tqdm import tqdm

from ragls.service.status import IndexProgress

PROGRESS_SECONDS_ENV = "RAGLS_PROGRESS_SECONDS"
DEFAULT_LINE_SECONDS = 10.0
BAR_DELAY_SECONDS = 0.5
NAME_WIDTH = 40


def line_seconds() -> float:
    """Seconds between plain progress lines: ``$RAGLS_PROGRESS_SECONDS``, else the default."""
    try:
        return max(0.0, float(os.environ.get(PROGRESS_SECONDS_ENV, DEFAULT_LINE_SECONDS)))
    except ValueError:
        return DEFAULT_LINE_SECONDS


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class IndexProgressDisplay:
    """A progress callback for index runs; call :meth:`close` when the run is over."""

    def __init__(
        self,
        stream: TextIO,
        *,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._clock = clock
        self._terminal = enabled and stream.isatty()
        self._lines = enabled and not self._terminal
        self._every = line_seconds()
        self._bar: tqdm[Never] | None = None
        self._started: float | None = None
        self._last_line = 0.0
        self._printed = False
        self._latest: IndexProgress | None = None

    def __call__(self, progress: IndexProgress) -> None:
        now = self._clock()
        if self._started is None:
            self._started = self._last_line = now
        self._latest = progress
        if self._terminal:
            self._show_bar(progress)
        elif self._lines and now - self._last_line >= self._every:
            self._last_line = now
            self._printed = True
            self._write_line(progress, now)
        if progress.indexed_files >= progress.total_files:
            self.close()

    def _show_bar(self, progress: IndexProgress) -> None:
        bar = self._bar
        if bar is None:
            bar = tqdm(
                total=progress.total_files,
                unit="file",
                file=self._stream,
                leave=False,
                dynamic_ncols=True,
                delay=min(BAR_DELAY_SECONDS, self._every),
                mininterval=0.1,
            )
            self._bar = bar
        if bar.total != progress.total_files:  # a new run (eval indexes more than once)
            bar.reset(total=progress.total_files)
        bar.set_postfix_str(progress.current_file[-NAME_WIDTH:], refresh=False)
        bar.update(progress.indexed_files - bar.n)

    def _write_line(self, progress: IndexProgress, now: float) -> None:
        done, total = progress.indexed_files, progress.total_files
        elapsed = now - (self._started or now)
        line = f"ragls: indexing {done}/{total} files"
        if elapsed > 0 and done:
            rate = done / elapsed
            line += f", {rate:.0f} files/s, about {_duration((total - done) / rate)} left"
        name = progress.current_file[-NAME_WIDTH:]
        print(f"{line}: {name}" if name else line, file=self._stream, flush=True)

    def close(self) -> None:
        """The run is over (or failed): clear the bar; end the lines with one that says so."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        latest = self._latest
        if self._printed and latest is not None and self._started is not None:
            seconds = self._clock() - self._started
            print(
                f"ragls: indexed {latest.indexed_files}/{latest.total_files} files "
                f"in {_duration(seconds)}",
                file=self._stream,
                flush=True,
            )
        self._started, self._latest, self._printed = None, None, False

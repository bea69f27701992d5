"""A coalescing debouncer: paths pile up and are handed over together after a quiet period.

An editor's atomic save (write a temporary file, rename it over the original) or a ``git
checkout`` touching thousands of files arrives as a burst of events; it becomes one call with the
set of paths once ``delay`` seconds pass without a new event, or at the latest ``max_delay``
seconds after the first event of the burst (so a never-ending stream is still processed). The
callback runs on the debouncer's own thread, never on the thread that reported the event.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Debouncer:
    def __init__(
        self,
        callback: Callable[[set[str], bool], None],
        *,
        delay: float = 0.2,
        max_delay: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._callback = callback
        self.delay = delay
        self.max_delay = max_delay
        self._clock = clock
        self._condition = threading.Condition()
        self._paths: set[str] = set()
        self._full = False
        self._first = 0.0
        self._last = 0.0
        self._stopped = False
        self._handing_over = False
        self.flushes = 0
        self._thread = threading.Thread(target=self._run, name="ragls-debounce", daemon=True)
        self._thread.start()

    def add(self, path: str) -> None:
        self._note(lambda: self._paths.add(path))

    def add_full(self) -> None:
        """Ask for a full rescan (events were lost, or the watch limit was reached)."""

        def mark() -> None:
            self._full = True

        self._note(mark)

    def _note(self, change: Callable[[], None]) -> None:
        with self._condition:
            now = self._clock()
            if not self._paths and not self._full:
                self._first = now
            change()
            self._last = now
            self._condition.notify()

    @property
    def pending(self) -> bool:
        """Whether changed paths wait for their quiet period."""
        with self._condition:
            return bool(self._paths) or self._full or self._handing_over

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            self._condition.notify()
        self._thread.join(timeout=5)

    def _due(self) -> float | None:
        """Seconds until the pending burst is due (0 = now), None if nothing is pending."""
        if not self._paths and not self._full:
            return None
        now = self._clock()
        return max(0.0, min(self._last + self.delay, self._first + self.max_delay) - now)

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._stopped:
                    wait = self._due()
                    if wait == 0.0:
                        break
                    self._condition.wait(timeout=wait)
                if self._stopped:
                    return
                paths, full = self._paths, self._full
                self._paths, self._full = set(), False
                self._handing_over = True  # still pending until the callback has them
                self.flushes += 1
            try:
                self._callback(paths, full)
            except Exception:
                log.exception("handling file changes failed")
            finally:
                with self._condition:
                    self._handing_over = False

"""LSP work-done progress for index runs, throttled and safe to call from the index thread.

Reports go out at most every ``interval`` seconds (and always for the last file), so a 50,000-file
run sends a few hundred ``$/progress`` notifications, not 50,000. The index thread never touches
the transport: every send is scheduled on the event loop. Cancelling the progress in the client's
UI (``window/workDoneProgress/cancel``) sets the job's cancel event.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from lsprotocol import types

from ragls.service.status import IndexProgress


class ProgressReporter:
    def __init__(
        self,
        server: Any,
        loop: asyncio.AbstractEventLoop,
        token: int | str,
        cancel: threading.Event,
        *,
        interval: float = 0.1,
    ) -> None:
        self._server = server
        self._loop = loop
        self._token = token
        self._interval = interval
        self._last = 0.0
        self.reports = 0
        self._cancel = cancel

    def begin(self, title: str) -> None:
        progress = self._server.work_done_progress
        progress.begin(
            self._token,
            types.WorkDoneProgressBegin(
                title=title, percentage=0, cancellable=True, message="Starting"
            ),
        )
        future = progress.tokens.get(self._token)
        if future is not None:
            future.add_done_callback(lambda f: self._cancel.set() if f.cancelled() else None)

    def __call__(self, progress: IndexProgress) -> None:
        now = time.monotonic()
        last_file = progress.indexed_files >= progress.total_files
        if not last_file and now - self._last < self._interval:
            return
        self._last = now
        self.reports += 1
        percentage = int(100 * progress.indexed_files / max(progress.total_files, 1))
        message = (
            f"Indexed {progress.indexed_files}/{progress.total_files}: {progress.current_file}"
        )
        report = types.WorkDoneProgressReport(
            message=message, percentage=percentage, cancellable=True
        )
        self._loop.call_soon_threadsafe(self._server.work_done_progress.report, self._token, report)

    def end(self, message: str) -> None:
        self._loop.call_soon_threadsafe(
            self._server.work_done_progress.end,
            self._token,
            types.WorkDoneProgressEnd(message=message),
        )

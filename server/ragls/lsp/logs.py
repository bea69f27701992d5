"""Logging for the daemon: stderr always (stdout is the JSON-RPC channel), and warnings and errors
also to the client as ``window/logMessage``, sent from the event loop whatever thread logged.
Both mask DSN passwords (:class:`~ragls.store.redaction.RedactingFilter`): pygls logs the whole
``initialize`` params at info level, ``persistence.store`` included."""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ragls.store.redaction import RedactingFilter

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    def __init__(self, server: Any) -> None:
        super().__init__(level=logging.WARNING)
        self._server = server

    def emit(self, record: logging.LogRecord) -> None:
        loop = getattr(self._server, "loop", None)
        if loop is None or loop.is_closed() or record.name.startswith("pygls"):
            return
        kind = _LEVELS.get(record.levelno, types.MessageType.Log)
        params = types.LogMessageParams(type=kind, message=self.format(record))
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._server.window_log_message, params)


class ExpectedErrorFilter(logging.Filter):
    """Drops pygls' tracebacks for errors ragls raises on purpose (InvalidParams and the other
    documented JSON-RPC errors): the client gets them as answers, the log needs no copy. Other
    pygls errors (a message it cannot parse) become one warning line unless debugging."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("pygls") or logging.getLogger().level <= logging.DEBUG:
            return True
        message = record.getMessage()
        if "Traceback (most recent call last)" in message:  # a traceback pasted into the text
            lines = [line for line in message.splitlines() if line.strip()]
            record.msg, record.args = f"{lines[0]}: {lines[-1].strip()}", ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        if record.exc_info:
            error = record.exc_info[1]
            if isinstance(error, JsonRpcException):
                return False
            # pygls could not parse or structure a client's message: one line, no traceback
            # (run with --log-level debug to see it).
            record.msg = f"{record.getMessage()}: {type(error).__name__}: {error}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure(server: Any, level: str) -> None:
    root = logging.getLogger()
    root.setLevel(level.upper())
    stderr = logging.StreamHandler(sys.stderr)
    stderr.addFilter(ExpectedErrorFilter())
    stderr.addFilter(RedactingFilter())
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    client = ClientLogHandler(server)
    client.setFormatter(logging.Formatter("%(message)s"))
    client.addFilter(RedactingFilter())
    logging.getLogger("ragls").addHandler(client)

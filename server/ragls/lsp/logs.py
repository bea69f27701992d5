"""Logging for the daemon: stderr always (stdout is the JSON-RPC channel), and warnings and errors
also to the client as ``window/logMessage``, sent from the event loop whatever thread logged."""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

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
    documented JSON-RPC errors): the client gets them as answers, the log needs no copy."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("pygls") and record.exc_info:
            return not isinstance(record.exc_info[1], JsonRpcException)
        return True


def configure(server: Any, level: str) -> None:
    root = logging.getLogger()
    root.setLevel(level.upper())
    stderr = logging.StreamHandler(sys.stderr)
    stderr.addFilter(ExpectedErrorFilter())
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    client = ClientLogHandler(server)
    client.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("ragls").addHandler(client)

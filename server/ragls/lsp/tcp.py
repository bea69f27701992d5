"""``ragls serve --tcp``: a debugging transport that is safe to leave running (docs/security.md).

* It listens on a loopback address unless ``--allow-remote`` is given (a non-loopback host
  without it is refused before anything listens).
* A random token is generated at start, printed to stderr and written to a file readable by the
  user only (``<cache root>/serve-token``); the first message of the connection must be
  ``initialize`` with ``initializationOptions.token`` equal to it, or the connection is closed
  and the process exits (status 4). The token is removed from the options before they are read.
* One client: the listening socket is closed once a client is accepted (a second connection is
  refused), and the process ends when that client leaves, as with stdio.

The connection is served exactly as stdio is, framing checks included (:mod:`ragls.lsp.framing`).
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from ragls.lsp.framing import EndInput
from ragls.service.guards.access import listen_address, write_token

log = logging.getLogger(__name__)

TOKEN_EXIT_CODE = 4
TOKEN_FILE = "serve-token"


def parse_address(text: str, allow_remote: bool) -> tuple[str, int]:
    return listen_address(text, "--tcp", allow_remote)


class TokenCheck:
    """What the connection's framed input inspects first: the first message must be
    ``initialize`` carrying the token (checked before anything else sees it, so an
    unauthenticated client gets no answer at all); later ones go to ``then``."""

    def __init__(self, token: str, then: Callable[[bytes], bytes] | None = None) -> None:
        self._token = token
        self._then = then
        self.authenticated = False
        self.refused: str | None = None

    def __call__(self, body: bytes) -> bytes:
        if not self.authenticated:
            body = self._authenticate(body)
        return body if self._then is None else self._then(body)

    def _authenticate(self, body: bytes) -> bytes:
        try:
            message = json.loads(body)
            options = message["params"]["initializationOptions"]
            given = options.pop("token")
        except (ValueError, KeyError, TypeError, AttributeError):
            message, given = None, None
        if (
            not isinstance(message, dict)
            or message.get("method") != "initialize"
            or not isinstance(given, str)
            or not hmac.compare_digest(given.encode(), self._token.encode())
        ):
            self.refused = "the first message was not initialize with the right token"
            log.error("tcp: %s; closing the connection", self.refused)
            raise EndInput(self.refused)
        self.authenticated = True
        return json.dumps(message).encode()


def accept_one(host: str, port: int, token_folder: Path) -> tuple[socket.socket, str]:
    """Listen, announce the address and the token, accept one client, stop listening."""
    token = secrets.token_urlsafe(32)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(1)
        bound = listener.getsockname()[1]
        where = write_token(token_folder, token, TOKEN_FILE)
        print(f"ragls serve: listening on {host}:{bound}", file=sys.stderr)
        print(f"ragls serve: token {token} (also in {where})", file=sys.stderr, flush=True)
        connection, peer = listener.accept()
    log.info("tcp: client %s connected; no other connection is accepted", peer)
    return connection, token

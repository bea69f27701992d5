"""Bounded HTTP connections for ``ragls mcp --http`` (SPEC §12; docs/security.md, "Who can
reach it").

uvicorn keeps a connection open for as long as its client does until a first request arrives:
a client (token or not: the token is checked per request) that opens connections and sends
nothing holds one descriptor each, and 1,100 of them exhausted the common limit of 1,024, after
which no real request was accepted. So the server's HTTP protocol is uvicorn's h11 one with two
bounds, as data:

* :data:`IDLE_SECONDS`: a connection with no request in progress (never sent a whole request,
  or finished its last one) is closed that long after it became idle; sending a request slowly
  does not reset the clock, only a complete one does. A request whose headers arrived but whose
  body stops arriving (a client holding the token that sends 1 byte of 1,000) is closed once
  nothing has come for that long: such requests held their connection for ever, and 64 of them
  shut every other client out;
* :data:`MAX_CONNECTIONS`: past that many open connections, a new one makes room by closing
  the connection idle the longest, or is answered 503 with ``Retry-After`` and closed when
  every other one is serving a request. Idle connections go first, oldest first, so a flood of
  them cannot shut out a client that connects and sends its request at once;
* :data:`ACCEPT_BACKLOG`: the listen backlog, which asyncio also takes as the number of
  connections it accepts in one go before any of them is set up (uvicorn's 2,048 opened
  2,048 descriptors at once under a flood, before a single idle one could be closed).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_CONNECTIONS = 64
IDLE_SECONDS = 10.0
ACCEPT_BACKLOG = 128
FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 38\r\nConnection: close\r\n\r\nevery connection is serving a request\n"
)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing idle connections and bounding how many are open."""

    _idle_since = 0.0
    _last_data = 0.0
    _idle_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._became_idle()
        self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._last_data = self.loop.time()
        super().data_received(data)

    def on_response_complete(self) -> None:
        self._became_idle()
        super().on_response_complete()

    @property
    def busy(self) -> bool:
        """Whether a request is in progress (its headers arrived, its response is not done)."""
        return self.cycle is not None and not self.cycle.response_complete

    def _became_idle(self) -> None:
        self._idle_since = self.loop.time()
        self._check_idle()

    def _check_idle(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self.transport.is_closing():
            self._idle_timer = None
            return
        now = self.loop.time()
        due = self._idle_since + IDLE_SECONDS - now
        stalled = self._reading_body and now - self._last_data >= IDLE_SECONDS
        if (due <= 0 and not self.busy) or stalled:
            self._idle_timer = None
            self.transport.close()
            return
        self._idle_timer = self.loop.call_later(max(due, IDLE_SECONDS / 10), self._check_idle)

    @property
    def _reading_body(self) -> bool:
        """A request's headers arrived and its body has not all arrived."""
        return self.busy and self.conn.their_state is h11.SEND_BODY

    def _make_room(self) -> None:
        # Connections being closed still count in ``connections`` until their loss is seen.
        if sum(not other.transport.is_closing() for other in self.connections) <= MAX_CONNECTIONS:
            return
        idle = [
            other
            for other in self.connections
            if other is not self
            and isinstance(other, BoundedH11Protocol)
            and not other.busy
            and not other.transport.is_closing()
        ]
        if idle:
            min(idle, key=lambda other: other._idle_since).transport.close()
        else:
            self.transport.write(FULL)
            self.transport.close()

"""The daemon's input framing, checked before pygls reads it (SPEC §9: nothing a client sends can
crash the process; docs/security.md).

pygls reads a header line with an unbounded ``readline()`` and then ``read(Content-Length)``:
``Content-Length: 1000000000000`` made it allocate until MemoryError, and framing it could not
parse (a negative or non-numeric length, LF-only headers, junk bytes, a missing length) left a
live process that never answered again. :class:`FramedInput` stands between stdin and pygls and
checks each header line (CRLF-terminated, at most 8 KiB, ``Name: value``), the length (decimal,
at most ``max_frame_bytes``, 64 MiB by default, ``ragls serve --max-frame-mib``), and that a body
is read right after its headers with that length. On the first violation it logs the reason and
reports end of input: pygls stops, the server saves and stops its sessions, and ``ragls serve``
exits with status 3, so the editor's client restarts it instead of waiting forever. A frame
that is well-formed but whose JSON is broken is pygls's concern (it logs it and goes on): the
stream is still in step.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger(__name__)

MAX_HEADER_LINE_BYTES = 8 * 1024
DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
FRAMING_EXIT_CODE = 3


class EndInput(Exception):
    """Raised by an ``inspect`` callable to end the input (it logs its own reason)."""


class FramedInput:
    """What pygls reads stdin through (``readline`` and ``read``)."""

    def __init__(
        self,
        raw: BinaryIO,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        inspect: Callable[[bytes], bytes] | None = None,
    ) -> None:
        """``inspect`` sees every body and returns what pygls reads instead
        (:class:`ragls.lsp.guard.ProtocolGuard`, :class:`ragls.lsp.tcp.TokenCheck`), or raises
        :class:`EndInput` to end the input."""
        self._raw = raw
        self._inspect = inspect
        self.max_frame_bytes = max_frame_bytes
        self.error: str | None = None
        self._length: int | None = None

    def _fail(self, reason: str) -> bytes:
        self.error = reason
        log.error(
            "unrecoverable framing error on stdin: %s; exiting so that the client restarts the "
            "server",
            reason,
        )
        return b""

    def readline(self) -> bytes:
        if self.error is not None:
            return b""
        line = self._raw.readline(MAX_HEADER_LINE_BYTES + 1)
        if not line:
            return b""  # the client closed stdin: an orderly end
        if len(line) > MAX_HEADER_LINE_BYTES:
            return self._fail(f"a header line longer than {MAX_HEADER_LINE_BYTES} bytes")
        if not line.endswith(b"\r\n"):
            return self._fail(f"a header line not ended by CRLF: {line[:60]!r}")
        if line == b"\r\n":
            if self._length is None:
                return self._fail("a header block without Content-Length")
            return line
        name, colon, value = line[:-2].partition(b":")
        if not colon or not name.strip() or b" " in name.strip():
            return self._fail(f"a malformed header line: {line[:60]!r}")
        if name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit() or len(text) > 15:
                return self._fail(f"Content-Length is not a byte count: {text[:30]!r}")
            length = int(text)
            if length == 0:
                return self._fail("Content-Length is 0")
            if length > self.max_frame_bytes:
                return self._fail(
                    f"a frame of {length} bytes, over the cap of {self.max_frame_bytes} bytes "
                    "(ragls serve --max-frame-mib)"
                )
            self._length = length
        return line

    def read(self, size: int = -1) -> bytes:
        if self.error is not None:
            return b""
        expected, self._length = self._length, None
        if expected is None or size != expected:
            return self._fail("a body read that does not follow its headers")
        data = self._raw.read(size)
        if len(data) < size:
            return self._fail(f"the input ended {size - len(data)} bytes before the frame's end")
        if self._inspect is None:
            return data
        try:
            return self._inspect(data)
        except EndInput as end:
            self.error = str(end)
            return b""

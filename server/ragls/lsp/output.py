"""The daemon's output channel, one frame at a time.

pygls answers a request from whichever thread ran its handler (ragls's handlers run in pygls'
thread pool), and writes each frame with one ``write`` on the output it was given. A
``BufferedWriter`` does not keep two threads' large writes to a pipe apart: measured with four
threads writing frames of 3 to 12 KB to a pipe, the stream was corrupt after 70 frames (a
frame's bytes, then another frame's header in the middle of its JSON). Under concurrent
searches with long answers a client then reads a broken message. Every write to the channel
(pygls' and the protocol guard's own error answers) goes through one :class:`SerialOutput`.
"""

from __future__ import annotations

import threading
from typing import BinaryIO


class SerialOutput:
    """``output`` with each ``write`` (and ``flush``) done whole, one at a time."""

    def __init__(self, output: BinaryIO) -> None:
        self._output = output
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self._lock:
            written = self._output.write(data)
            self._output.flush()
            return written

    def flush(self) -> None:
        with self._lock:
            self._output.flush()

    def close(self) -> None:
        with self._lock:
            self._output.close()

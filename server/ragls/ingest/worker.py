"""The worker process of ``ragls.ingest.parallel``: ``python -c "from ragls.ingest.worker
import serve; serve()"``.

Protocol over its standard input and output, each message a 4-byte big-endian length and a
pickle: first ``(limits, chunker bounds, config)``, then batches ``[(candidate, prior digest),
...]`` each answered by the list of ``Processed`` values, in order. End of input ends the worker.
The real standard output is kept for the protocol only; ``sys.stdout`` is pointed at stderr so a
stray print cannot corrupt a message. Only ragls's own parent writes to it, so unpickling is safe.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from typing import IO, cast

from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from ragls.ingest.pipeline import process_file
from ragls.ingest.walk import Candidate

_HEADER = struct.Struct(">I")


def read_message(stream: IO[bytes]) -> object | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack(header)
    payload = stream.read(length)
    if len(payload) < length:
        return None
    message: object = pickle.loads(payload)
    return message


def write_message(stream: IO[bytes], message: object) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def serve() -> None:
    """Answer batches until the input ends; a parent that is gone (its client left while a
    first index ran, the pipe closed) ends the worker quietly, not with a traceback on the
    terminal."""
    try:
        _serve()
    except (BrokenPipeError, ConnectionResetError):
        os._exit(0)  # nothing may flush into the closed pipe on the way out


def _serve() -> None:
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr
    protocol_in = sys.stdin.buffer
    setup = read_message(protocol_in)
    if setup is None:
        return
    limits, bounds, config = cast(
        "tuple[Limits, tuple[int, int, int], KnowledgeSourceConfig]", setup
    )
    max_lines, max_chars, max_line_chars = bounds
    chunker = NormalizedDocumentChunker(
        max_lines=max_lines, max_chars=max_chars, max_line_chars=max_line_chars
    )
    service = FileIngestionService(limits, chunker)
    while (message := read_message(protocol_in)) is not None:
        batch = cast("list[tuple[Candidate, str | None]]", message)
        results = [process_file(service, config, candidate, prior) for candidate, prior in batch]
        write_message(protocol_out, results)

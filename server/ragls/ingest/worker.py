"""The worker process of ``ragls.ingest.parallel``: ``python -c "from ragls.ingest.worker
import serve; serve()"``.

Protocol over its standard input and output, each message a 4-byte big-endian length and a
pickle: first ``(limits, chunker bounds, config, encoders)``, then batches ``[(candidate, prior
digest), ...]`` each answered by the list of ``Processed`` values, in order. End of input ends
the worker. ``encoders`` are the run's preparing streams' (``PreparingStream.encoder``,
module-level functions): the documents a batch chunked are encoded by each, together, and every
chunked file's ``Processed`` carries its piece of each encoding (``encodings``), so that the
main process only joins them (:func:`ragls.core.batches.pieces`).
The real standard output is kept for the protocol only; ``sys.stdout`` is pointed at stderr so a
stray print cannot corrupt a message. Only ragls's own parent writes to it, so unpickling is safe.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import IO, cast

from ragls.core.batches import EncodedBatch, pieces
from ragls.core.documents import Document
from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from ragls.ingest.pipeline import Processed, Status, process_file
from ragls.ingest.walk import Candidate

_HEADER = struct.Struct(">I")

Encoder = Callable[[Sequence[Document]], EncodedBatch]


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
    limits, bounds, config, encoders = cast(
        "tuple[Limits, tuple[int, int, int], KnowledgeSourceConfig, tuple[Encoder, ...]]", setup
    )
    max_lines, max_chars, max_line_chars = bounds
    chunker = NormalizedDocumentChunker(
        max_lines=max_lines, max_chars=max_chars, max_line_chars=max_line_chars
    )
    service = FileIngestionService(limits, chunker)
    while (message := read_message(protocol_in)) is not None:
        batch = cast("list[tuple[Candidate, str | None]]", message)
        results = [process_file(service, config, candidate, prior) for candidate, prior in batch]
        write_message(protocol_out, encoded(results, encoders))


def encoded(results: list[Processed], encoders: Sequence[Encoder]) -> list[Processed]:
    """``results``, each chunked file's with its documents as each of ``encoders`` encodes
    them (the batch's documents encoded together, then cut per file)."""
    chunked = [n for n, result in enumerate(results) if result.status is Status.CHUNKED]
    chunked = [n for n in chunked if results[n].documents]
    if not encoders or not chunked:
        return results
    documents = [document for n in chunked for document in results[n].documents]
    counts = [len(results[n].documents) for n in chunked]
    cut = [pieces(encoder(documents), counts) for encoder in encoders]
    answer = list(results)
    for position, n in enumerate(chunked):
        answer[n] = replace(results[n], encodings=tuple(each[position] for each in cut))
    return answer

"""The daemon's output channel: frames written from several threads at once stay whole."""

from __future__ import annotations

import os
import threading

from ragls.lsp.output import SerialOutput


def test_frames_written_from_several_threads_never_interleave() -> None:
    read_end, write_end = os.pipe()
    output = SerialOutput(os.fdopen(write_end, "wb"))
    frames = 400

    def writer(tag: bytes) -> None:
        for number in range(frames):
            body = tag * (3_000 + number * 37 % 9_000)
            output.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    threads = [threading.Thread(target=writer, args=(tag,)) for tag in (b"a", b"b", b"c", b"d")]
    with os.fdopen(read_end, "rb") as reader:
        for thread in threads:
            thread.start()
        received = 0
        while received < frames * len(threads):
            header = reader.readline()
            assert header.startswith(b"Content-Length: "), header[:40]
            length = int(header.split(b":")[1])
            assert reader.readline() == b"\r\n"
            body = reader.read(length)
            assert len(set(body)) == 1, "another frame's bytes inside this one"
            received += 1
        for thread in threads:
            thread.join()
    output.close()

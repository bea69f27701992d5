"""The chunks a pasted stack trace passed through (SPEC §10; the question issue's "a traceback's
frames count as strong evidence").

A trace names files and lines: ``File "app/models.py", line 40, in save``,
``at handler (src/app.ts:10:5)``, ``/src/app/server.go:42 +0x1d``. The ranking layer already
counts a frame's file as a file the query names and its function as a name it says, but every
chunk of a named file gains alike, and a Go or C frame names no function at all. The chunk that
holds the frame's line is where the trace passed: :func:`frame_slots` finds it directly, for
each frame (in the order pasted) the narrowest live chunk of each indexed file the frame's path
names (the same path, one it ends with, or an absolute path ending with it) whose lines hold the
frame's line. The retriever fuses them as one more ranking (the ``frames`` weight of the query
kind's ranking weights: only pasted traces) before the ranking layer, so a frame's chunk is a
candidate even when none of the query's words is in it. Frames in files the workspace does not
hold (the standard library, installed packages) find nothing. A line from an older version of
the file may point at a neighbouring chunk of the right file; that is still the file the trace
is about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragls.core.documents import Document
from ragls.core.postings import InvertedIndex, SlotArray
from ragls.core.ranking.columns import END_LINE_KEY, START_LINE_KEY, Interner


def frame_slots(
    index: InvertedIndex,
    documents: Mapping[str, Document],
    interner: Interner,
    file_numbers: np.ndarray,
    frame_lines: Sequence[tuple[str, int]],
) -> SlotArray:
    """Slots of the chunks holding the frames' lines, in frame order (``file_numbers``: each
    slot's file number; the caller holds the index's lock)."""
    frames = [(interner.files_named(file), line) for file, line in frame_lines]
    numbers = sorted({number for named, _ in frames for number in named})
    if not numbers:
        return np.zeros(0, np.int32)
    slots = np.flatnonzero(np.isin(file_numbers, numbers))
    dead = index.dead_slots()
    if len(dead) and len(slots):
        slots = slots[~np.isin(slots, dead)]
    spans: dict[int, list[tuple[int, int, int]]] = {}  # file number -> (start, end, slot)
    for slot in slots.tolist():
        metadata = documents[index.id_at(slot)].metadata
        try:
            start, end = int(metadata[START_LINE_KEY]), int(metadata[END_LINE_KEY])
        except (KeyError, TypeError, ValueError):  # a chunk without lines holds no frame
            continue
        spans.setdefault(int(file_numbers[slot]), []).append((start, end, slot))
    found: dict[int, None] = {}
    for named, line in frames:
        for number in named:
            holding = [
                (end - start, slot)
                for start, end, slot in spans.get(number, ())
                if start <= line <= end
            ]
            if holding:
                found.setdefault(min(holding)[1], None)
    return np.array(list(found), np.int32)

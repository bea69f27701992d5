"""A team index's parts in ``ragls_parts``: written by COPY in pieces, read back within the
sizes the manifest declares (docs/storage.md, "A team index"; docs/security.md).

A part is stored as pieces of at most :data:`PIECE_BYTES` (a ``bytea`` holds 1 GB at most). A
reader asks the database for each part's total size first (``octet_length`` reads the size
from the TOAST pointer, not the bytes) and allocates a part's buffer only when that size is
the one its manifest entry declares; pieces are then copied into it and a piece that would
pass its end, or a part left short, is refused. A database writer therefore cannot make a
consumer allocate more than the bytes it really stored, whatever the manifest says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragls.store.files import CorruptFile
from ragls.store.manifest import Part

PIECE_BYTES = 32 * 1024 * 1024


def write(copy: Any, generation_id: int, payload: Iterable[tuple[str, bytes | memoryview]]) -> None:
    """Write every (name, bytes) of ``payload`` through an open ``COPY ragls_parts``."""
    for name, content in payload:
        view = memoryview(content).cast("B")
        starts = range(0, max(len(view), 1), PIECE_BYTES)
        for piece, start in enumerate(starts):
            copy.write_row((generation_id, name, piece, bytes(view[start : start + PIECE_BYTES])))


def read(connection: Any, generation_id: int, parts: Mapping[str, Part]) -> dict[str, bytearray]:
    """The bytes of ``parts`` (by name) of the generation ``generation_id``, each exactly its
    declared size (CorruptFile naming the part otherwise); checksums are the caller's."""
    if not parts:
        return {}
    names = sorted(parts)
    stored = {
        name: (int(size), int(pieces))
        for name, size, pieces in connection.execute(
            """SELECT name, sum(octet_length(data)), count(*) FROM ragls_parts
               WHERE generation_id = %s AND name = ANY(%s) GROUP BY name""",
            (generation_id, names),
        ).fetchall()
    }
    for name in names:
        if name not in stored:
            raise CorruptFile(f"{name} is missing")
        size, pieces = stored[name]
        if size != parts[name].size:
            raise CorruptFile(f"{name} has {size} bytes, the manifest says {parts[name].size}")
        if pieces > max(1, -(-size // PIECE_BYTES)):
            raise CorruptFile(f"{name} is stored in {pieces} pieces, more than its size needs")
    buffers = {name: bytearray(parts[name].size) for name in names}
    filled = dict.fromkeys(names, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT name, data FROM ragls_parts
               WHERE generation_id = %s AND name = ANY(%s) ORDER BY name, piece""",
            (generation_id, names),
        )
        for name, data in cursor:
            start = filled.get(name)
            if start is None or start + len(data) > len(buffers[name]):
                raise CorruptFile(f"{name} has more bytes than the manifest says")
            buffers[name][start : start + len(data)] = data
            filled[name] = start + len(data)
    for name in names:
        if filled[name] != parts[name].size:
            raise CorruptFile(f"{name} ended early")
    return buffers

"""What one index run changes in the stores: the documents to add and to remove (SPEC §8).

A generation is a mapping of file path to :class:`FileRecord`; a run stages the next one from
the committed one, reusing the record (and so the very documents) of every unchanged file, so
the change between two generations is found by identity, file by file.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragls.core.documents import Document
from ragls.ingest.fingerprint import FileRecord


def difference(
    previous: Mapping[str, FileRecord],
    staged: Mapping[str, FileRecord],
    touched: set[str] | None = None,
) -> tuple[list[Document], list[str], list[Document]]:
    """(documents to add, ids to remove, the removed documents) turning previous into staged.
    ``touched``: the only paths whose records can differ (a changed-paths run), so a one-file
    change costs that file rather than a pass over every record of the source."""
    added: list[Document] = []
    removed: list[Document] = []
    before = previous if touched is None else {p: previous[p] for p in touched if p in previous}
    after = staged if touched is None else {p: staged[p] for p in sorted(touched) if p in staged}
    for path, record in before.items():
        new = staged.get(path)
        if new is None or new.documents is not record.documents:
            removed.extend(record.documents)
    for path, record in after.items():
        old = previous.get(path)
        if old is None or old.documents is not record.documents:
            added.extend(record.documents)
    return added, [d.id for d in removed], removed

"""A writer to kill: it flips one file of ROOT between two contents and saves after each run.

Run as ``python -m tests.store.crash_writer ROOT CACHE``; it loops until killed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore

VARIANTS = (
    "def settle_invoice(total):\n    return ledger.settle(total)\n",
    "class InvoiceArchive:\n    def restore(self, shelf):\n        return shelf.pop()\n",
)
FLIPPED = "billing/invoices.py"


def write_atomically(path: Path, text: str) -> None:
    staged = path.with_suffix(".tmp-flip")
    staged.write_text(text)
    os.replace(staged, path)


def main(root: Path, cache: Path) -> None:
    persistence = Persistence(EmbeddedStore(root, cache), quiet_seconds=3600)
    service = RagService(pipeline=WORKSPACE, persistence=persistence)
    turn = 0
    while True:
        write_atomically(root / FLIPPED, VARIANTS[turn % 2])
        service.index_directory(root, changed_paths=None if turn == 0 else [FLIPPED])
        persistence.flush()
        turn += 1


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))

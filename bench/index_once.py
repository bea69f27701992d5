"""One cold and one warm index of a folder in a fresh process; prints JSON (used by run.py).

Run in its own process so that peak RSS belongs to this index alone.
"""

from __future__ import annotations

import json
import resource
import sys
import time

from ragls import RagService


def main(root: str, excludes: list[str]) -> None:
    rag = RagService()
    started = time.perf_counter()
    status = rag.index_directory(root, exclude=excludes)
    cold = time.perf_counter() - started
    report = rag.last_report
    started = time.perf_counter()
    warm_status = rag.index_directory(root, exclude=excludes)
    warm = time.perf_counter() - started
    warm_report = rag.last_report
    assert report is not None and warm_report is not None
    print(
        json.dumps(
            {
                "files": status.file_count,
                "chunks": status.chunk_count,
                "bytes": report.total_bytes,
                "cold_s": cold,
                "warm_s": warm,
                "warm_files_read": warm_report.files_read,
                "warm_generation_same_chunks": warm_status.chunk_count == status.chunk_count,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

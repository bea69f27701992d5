"""Every format's broken or extreme inputs go through a real index run without aborting it."""

from __future__ import annotations

import json
from pathlib import Path

from ragls import RagService
from tests.ingest.trees import backdate, make_tree, minimal_pdf


def test_broken_and_extreme_files_are_reported_never_fatal(tmp_path: Path) -> None:
    good_pdf = minimal_pdf(["Quarterly revenue grew"])
    notebook = {"cells": [{"cell_type": "code", "source": ["def total():\n", "    return 3"]}]}
    root = make_tree(
        tmp_path,
        {
            "empty.txt": b"",
            "latin1.txt": "café crème brûlée".encode("latin-1"),
            "invalid_utf8.py": b"def f():\n    return '\xff\xfe broken'\n",
            "one_line.txt": "word " * 2_000_000,  # a 10 MB single line
            "truncated.pdf": good_pdf[: len(good_pdf) // 3],
            "report.pdf": good_pdf,
            "broken.ipynb": '{"cells": [',
            "analysis.ipynb": json.dumps(notebook),
            "blob.bin.txt": b"\x00\x01\x02\x03" * 100,
            "ok.md": "# Fine\n\nStill indexed.\n",
        },
    )
    rag = RagService()
    status = rag.index_directory(root)
    report = rag.last_report
    assert report is not None
    skipped = {s.path: s.reason.value for s in report.skipped}
    assert skipped == {
        "truncated.pdf": "extract-failed",
        "broken.ipynb": "extract-failed",
        "blob.bin.txt": "binary",
    }
    files = {r.metadata["file"] for r in rag.search("word revenue crème total fine café def", 100)}
    assert files == {
        "latin1.txt",
        "invalid_utf8.py",
        "one_line.txt",
        "report.pdf",
        "analysis.ipynb",
        "ok.md",
    }
    assert status.file_count == 7  # the empty file is indexed, with no chunks
    assert "empty.txt" in rag.indexed_files()
    assert report.cut_lines == 1
    [line_chunk] = [r for r in rag.search("word", 10) if r.metadata["file"] == "one_line.txt"]
    assert len(line_chunk.content) == 2000
    assert rag.search("revenue", 3)[0].metadata["file"] == "report.pdf"
    assert rag.search("crème", 3)[0].metadata["file"] == "latin1.txt"
    notebook_hit = rag.search("total", 3)[0]
    assert (notebook_hit.metadata["symbol"], notebook_hit.metadata["kind"]) == (
        "cell 1",
        "code-cell",
    )


def test_content_that_cannot_be_extracted_is_not_read_again_until_it_changes(
    tmp_path: Path,
) -> None:
    good_pdf = minimal_pdf(["Quarterly revenue grew"])
    notebook = {"cells": [{"cell_type": "code", "source": ["def total():\n", "    return 3"]}]}
    root = make_tree(
        tmp_path,
        {
            "truncated.pdf": good_pdf[: len(good_pdf) // 3],
            "broken.ipynb": '{"cells": [',
            "analysis.ipynb": json.dumps(notebook),
            "ok.md": "# Fine\n\nStill indexed.\n",
        },
    )
    rag = RagService()
    rag.index_directory(root)
    first = rag.last_report
    assert first is not None and first.files_read == 4
    assert {e.split(":")[0] for e in first.errors} == {"truncated.pdf", "broken.ipynb"}

    rag.index_directory(root)  # nothing changed: the broken files are trusted, as a binary is
    again = rag.last_report
    assert again is not None and again.files_read == 0
    assert sorted(again.errors) == sorted(first.errors)  # still reported, not read again
    assert {s.path: s.reason.value for s in again.skipped} == {
        "truncated.pdf": "extract-failed",
        "broken.ipynb": "extract-failed",
    }
    assert rag.get_status().file_count == 2

    (root / "broken.ipynb").write_text(json.dumps(notebook))  # repaired: read and indexed
    backdate(root / "broken.ipynb")
    rag.index_directory(root)
    repaired = rag.last_report
    assert repaired is not None and repaired.files_read == 1 and repaired.files_chunked == 1
    assert {r.metadata["file"] for r in rag.search("total", 10)} == {
        "analysis.ipynb",
        "broken.ipynb",
    }

    (root / "analysis.ipynb").write_text('{"cells": [')  # had chunks, now broken: they stay,
    backdate(root / "analysis.ipynb")  # and the file is read again each run (it may be mid-write)
    for _ in range(2):
        rag.index_directory(root)
        kept = rag.last_report
        assert kept is not None and kept.files_read == 1
        [error] = [e for e in kept.errors if e.startswith("analysis.ipynb")]
        assert error.startswith("analysis.ipynb: notebook is not valid JSON")
        assert error.endswith("; previous chunks kept")
    assert "analysis.ipynb" in {r.metadata["file"] for r in rag.search("total", 10)}

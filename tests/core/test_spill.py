"""Chunk texts held in a file rather than the heap (ragls.core.spill)."""

from __future__ import annotations

import gc
import os
import pickle
import sys
import tempfile
import tracemalloc
from pathlib import Path

import pytest

from ragls.core import spill as spill_module
from ragls.core.documents import Document
from ragls.core.spill import MIN_SPILL_CHARS, SpilledDocument, TextSpill

LONG = "def handler(request):\n    return render(request, 'index.html')\n" * 3


def _documents() -> list[Document]:
    return [
        Document("a.py:1-3", LONG, {"file": "a.py", "language": "python"}),
        Document("b.md:1-1", "short", {"file": "b.md"}),
        Document("c.txt:1-9", "naïve café ✓ \U0001d518\U0001d52b " * 10, {"file": "c.txt"}),
        Document("d.py:1-2", "name = '\udcff lone surrogate'\n" * 5, {"file": "d.py"}),
    ]


def test_texts_read_back_equal_and_documents_compare_equal(tmp_path: Path) -> None:
    given = _documents()
    held = TextSpill(tmp_path).hold(given)
    assert [type(d) for d in held] == [SpilledDocument, Document, SpilledDocument, SpilledDocument]
    for original, spilled in zip(given, held, strict=True):
        assert spilled.content == original.content
        assert spilled == original and hash(spilled) == hash(original)
        assert dict(spilled.metadata) == dict(original.metadata)
        assert spilled.id == original.id
        # Pickled (to a worker, a store) as the plain document with the same text.
        again = pickle.loads(pickle.dumps(spilled))
        assert type(again) is Document and again == original


def test_short_texts_and_spilled_documents_are_kept_as_given(tmp_path: Path) -> None:
    spill = TextSpill(tmp_path)
    short = Document("s", "x" * (MIN_SPILL_CHARS - 1))
    (held,) = spill.hold([short])
    assert held is short
    (spilled,) = spill.hold([Document("l", "y" * MIN_SPILL_CHARS)])
    (again,) = spill.hold([spilled])
    assert again is spilled
    assert spill.spilled_bytes == MIN_SPILL_CHARS


def test_segments_fill_and_a_new_one_starts(tmp_path: Path) -> None:
    spill = TextSpill(tmp_path, segment_bytes=1_000)
    given = [Document(f"d{n}", f"{n:04d} " + "z" * 300) for n in range(20)]
    held = spill.hold(given[:7]) + spill.hold(given[7:])
    assert [d.content for d in held] == [d.content for d in given]
    segments = {id(d._segment) for d in held if isinstance(d, SpilledDocument)}
    assert len(segments) >= 7  # three texts of 305 bytes to a 1,000-byte segment
    # A text larger than a segment gets a segment of its own size.
    (big,) = spill.hold([Document("big", "w" * 5_000)])
    assert big.content == "w" * 5_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts /proc/self/fd")
def test_a_segment_is_closed_with_its_last_document(tmp_path: Path) -> None:
    def open_files() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_files()
    spill = TextSpill(tmp_path, segment_bytes=1_000)
    held = spill.hold([Document(f"d{n}", "q" * 400) for n in range(6)])  # three segments
    assert open_files() == before + 3
    del held
    gc.collect()
    assert open_files() == before + 1  # the spill's current segment stays open
    assert os.listdir(tmp_path) == []  # the files were never visible


def test_nothing_is_lost_when_no_folder_can_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    spill = TextSpill(tmp_path)
    given = _documents()
    assert spill.hold(given) == tuple(given)
    assert all(type(d) is Document for d in spill.hold(given))
    assert "chunk texts stay in memory" in caplog.text


def test_an_indexed_corpus_keeps_its_text_out_of_the_heap(tmp_path: Path) -> None:
    from ragls.service.pipelines import WORKSPACE
    from ragls.service.rag_service import RagService

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    line = "The running total of the batch is checked against the ledger every night.\n"
    text_bytes = 0
    for number in range(60):
        body = f"Report {number} of the ledger\n" + line * 400
        (corpus / f"notes_{number}.txt").write_text(body, encoding="utf-8")
        text_bytes += len(body)
    service = RagService(pipeline=WORKSPACE)
    gc.collect()
    tracemalloc.start()
    try:
        status = service.index_directory(corpus)
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status.chunk_count >= 60
    # About a quarter of the text with the spill (ids, metadata, postings); 1.2 times it without.
    assert retained < text_bytes / 2, (retained, text_bytes)
    (found,) = service.search("Report 7 of the ledger", 1)
    assert found.document.content.startswith("Report 7 of the ledger\n")


@pytest.mark.parametrize("vector", [True, False])
def test_many_texts_are_written_in_vectors_and_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vector: bool
) -> None:
    monkeypatch.setattr(spill_module, "_PWRITEV", vector)  # and without pwritev: one buffer
    monkeypatch.setattr(spill_module, "_VECTOR", 16)
    calls = {"pwritev": 0, "pwrite": 0}
    for name in calls:
        original = getattr(os, name)

        def counting(*args: object, name: str = name, original: object = original) -> object:
            calls[name] += 1
            return original(*args)  # type: ignore[operator]

        monkeypatch.setattr(os, name, counting)
    spill = TextSpill(tmp_path, segment_bytes=20_000)
    given = [Document(f"d{n}", f"{n:05d} " + "\u00e9z" * (40 + n % 97)) for n in range(500)]
    held = spill.hold(given)
    assert [d.content for d in held] == [d.content for d in given]
    assert spill.spilled_bytes == sum(len(d.content.encode()) for d in given)
    if vector:  # 16 buffers a call, a segment's batch at a time; nothing joined
        assert calls["pwritev"] >= 500 // 16 and calls["pwrite"] == 0
    else:
        assert calls["pwritev"] == 0 and calls["pwrite"] >= 1


def test_a_short_vector_write_is_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = os.pwritev

    def first_buffer_only(fd: int, buffers: list[bytes], offset: int) -> int:
        return original(fd, buffers[:1], offset)  # as a signal would cut it short

    monkeypatch.setattr(os, "pwritev", first_buffer_only)
    given = [Document(f"d{n}", f"{n:03d} " + "q" * 200) for n in range(50)]
    held = TextSpill(tmp_path).hold(given)
    assert [d.content for d in held] == [d.content for d in given]


def test_a_text_far_into_its_source_or_very_long_reads_back_as_a_near_one() -> None:
    """A document keeps its text's place as one packed number, or as the pair when the place
    does not fit (a start past 16 GiB, a text of 64 MiB or more): both read back the same."""

    class Source:
        def text(self, start: int, end: int) -> str:
            return f"{start}:{end}"

    places = [(0, 300), (5_000, 5_256), (1 << 40, (1 << 40) + 300), (7, 7 + (1 << 27))]
    documents = spill_module.kept_in(
        Source(),
        [f"d{n}" for n in range(len(places))],
        [{"file": f"f{n}.py"} for n in range(len(places))],
        ([start for start, _ in places], [end for _, end in places]),
        lambda number: "short",
    )
    assert [d.content for d in documents] == [f"{start}:{end}" for start, end in places]
    assert [type(d) for d in documents] == [SpilledDocument] * len(places)

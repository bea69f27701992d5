"""FileIndexer's generation guarantees and incremental work (SPEC §8 "Incremental indexing")."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

import pytest

from ragls.core.bm25 import BM25Stream
from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.errors import IndexCancelledError, IndexCommitError, IndexRejectedError
from ragls.ingest.admission import SkipReason
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.indexer import FileIndexer, IndexReport
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from ragls.ingest.partial import PartialCommits
from ragls.ingest.walk import Candidate
from tests.ingest.trees import backdate, make_tree


class Stores:
    def __init__(self) -> None:
        self.kb = InMemoryKnowledgeBase()
        self.bm25 = BM25Stream(max_documents=100_000)

    def ids(self) -> set[str]:
        kb_ids = {d.id for d in self.kb.list()}
        assert kb_ids == set(self.bm25.ids()), "knowledge base and BM25 disagree"
        return kb_ids

    def files(self) -> set[str]:
        return {d.metadata["file"] for d in self.kb.list()}


def run(indexer: FileIndexer, root: Path, stores: Stores, **kwargs: object) -> IndexReport:
    return indexer.index(KnowledgeSourceConfig(root), stores.kb, stores.bm25, **kwargs)  # type: ignore[arg-type]


def tree(tmp_path: Path, count: int = 5) -> Path:
    return make_tree(
        tmp_path, {f"src/m{i}.py": f"def f{i}():\n    return 'token{i}'\n" for i in range(count)}
    )


def test_first_run_indexes_everything(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    report = run(indexer, tree(tmp_path), stores)
    assert (report.file_count, report.files_read, report.files_chunked) == (5, 5, 5)
    assert stores.files() == {f"src/m{i}.py" for i in range(5)}
    assert report.chunk_count == len(stores.ids())


def test_warm_run_reads_nothing(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    before = stores.ids()
    report = run(indexer, root, stores)
    assert (report.files_read, report.files_chunked, report.chunks_added) == (0, 0, 0)
    assert stores.ids() == before


def test_recently_written_files_are_rehashed_not_trusted(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = make_tree(tmp_path, {"a.txt": "alpha"}, old=False)  # mtime = now: inside racy window
    run(indexer, root, stores)
    report = run(indexer, root, stores)
    assert (report.files_read, report.files_chunked) == (1, 0)


def test_touched_but_unchanged_file_is_read_but_not_rechunked(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    os.utime(root / "src/m1.py", (1_600_000_100, 1_600_000_100))
    report = run(indexer, root, stores)
    assert (report.files_read, report.files_chunked) == (1, 0)


def test_changed_file_is_rechunked_alone(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    (root / "src/m2.py").write_text("def changed():\n    return 'fresh'\n")
    backdate(root / "src/m2.py")
    os.utime(root / "src/m2.py", (1_600_000_500, 1_600_000_500))
    report = run(indexer, root, stores)
    assert (report.files_read, report.files_chunked) == (1, 1)
    assert [r.metadata["file"] for r in stores.bm25.search("fresh", 5)] == ["src/m2.py"]
    assert stores.bm25.search("token2", 5) == []


def test_deleted_and_renamed_files_lose_their_chunks(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    (root / "src/m0.py").unlink()
    (root / "src/m1.py").rename(root / "src/renamed.py")
    report = run(indexer, root, stores)
    assert report.files_removed == 2
    assert stores.files() == {"src/m2.py", "src/m3.py", "src/m4.py", "src/renamed.py"}


def test_newly_ignored_files_lose_their_chunks(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    (root / ".gitignore").write_text("m3.py\n")
    run(indexer, root, stores)
    assert "src/m3.py" not in stores.files()


def test_unreadable_file_keeps_its_previous_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    before = stores.ids()
    os.utime(root / "src/m1.py", (1_600_000_900, 1_600_000_900))  # forces a read
    real_read = FileIngestionService.read

    def failing_read(
        self: FileIngestionService, config: KnowledgeSourceConfig, c: Candidate
    ) -> bytes:
        if c.path == "src/m1.py":
            raise PermissionError(13, "Permission denied")
        return real_read(self, config, c)

    monkeypatch.setattr(FileIngestionService, "read", failing_read)
    report = run(indexer, root, stores)
    assert stores.ids() == before
    assert any("src/m1.py" in error for error in report.errors)
    assert any(s.path == "src/m1.py" and s.reason is SkipReason.UNREADABLE for s in report.skipped)


class FailingBM25(BM25Stream):
    fail = False

    def replace_documents(
        self, remove_ids: Iterable[str], add: Iterable[Document], analyzed: object = None
    ) -> None:
        if self.fail:
            raise RuntimeError("injected BM25 failure")
        super().replace_documents(remove_ids, add)


def test_bm25_swap_failure_restores_the_knowledge_base(tmp_path: Path) -> None:
    kb, bm25, indexer = InMemoryKnowledgeBase(), FailingBM25(), FileIndexer()
    root = tree(tmp_path)
    indexer.index(KnowledgeSourceConfig(root), kb, bm25)
    before = {d.id: d for d in kb.list()}
    (root / "src/m0.py").unlink()
    (root / "src/new.py").write_text("def brand_new():\n    pass\n")
    bm25.fail = True
    with pytest.raises(IndexCommitError, match="restored"):
        indexer.index(KnowledgeSourceConfig(root), kb, bm25)
    assert {d.id: d for d in kb.list()} == before
    assert set(bm25.ids()) == set(before)
    bm25.fail = False  # the next run still knows what it must change
    report = indexer.index(KnowledgeSourceConfig(root), kb, bm25)
    assert report.files_removed == 1
    assert {d.metadata["file"] for d in kb.list()} >= {"src/new.py"}
    assert "src/m0.py" not in {d.metadata["file"] for d in kb.list()}


def test_source_caps_reject_the_run_and_keep_the_previous_index(tmp_path: Path) -> None:
    stores = Stores()
    indexer = FileIndexer(Limits(max_files=5))
    root = tree(tmp_path)
    run(indexer, root, stores)
    before = stores.ids()
    (root / "src/extra.py").write_text("x = 1\n")
    with pytest.raises(IndexRejectedError, match="max_files"):
        run(indexer, root, stores)
    assert stores.ids() == before
    small = FileIndexer(Limits(max_total_bytes=10))
    with pytest.raises(IndexRejectedError, match="max_total_bytes"):
        run(small, root, Stores())


def test_the_chunk_cap_rejects_the_run_and_keeps_the_previous_index(tmp_path: Path) -> None:
    stores = Stores()
    root = tree(tmp_path)
    indexer = FileIndexer()
    report = run(indexer, root, stores)
    before = stores.ids()
    capped = FileIndexer(Limits(max_chunks=report.chunk_count - 1))
    with pytest.raises(IndexRejectedError, match=f"max_chunks cap of {report.chunk_count - 1}"):
        run(capped, root, stores)
    assert stores.ids() == before


def test_per_file_caps_skip_the_file_with_its_reason(tmp_path: Path) -> None:
    stores = Stores()
    root = make_tree(
        tmp_path, {"big.txt": "x" * 200, "small.txt": "tiny", "many.txt": "a\n\nb\n\nc\n"}
    )
    indexer = FileIndexer(Limits(max_file_bytes=100, max_chunks_per_file=1))
    indexer.ingestion.chunker.max_lines = 1  # one paragraph per chunk
    report = run(indexer, root, stores)
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons["big.txt"] is SkipReason.TOO_LARGE
    assert reasons["many.txt"] is SkipReason.TOO_MANY_CHUNKS
    assert stores.files() == {"small.txt"}


def test_cancellation_leaves_the_previous_generation(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    before = stores.ids()
    for i in range(5):
        (root / f"src/m{i}.py").write_text(f"def g{i}():\n    pass\n")
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(IndexCancelledError):
        run(indexer, root, stores, cancelled=cancelled)
    assert stores.ids() == before
    report = run(indexer, root, stores)
    assert report.files_chunked == 5


def test_progress_reports_each_file(tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    run(FileIndexer(), tree(tmp_path, 3), Stores(), progress=lambda *tick: seen.append(tick))
    assert seen == [(1, 3, "src/m0.py"), (2, 3, "src/m1.py"), (3, 3, "src/m2.py")]


def test_changed_paths_run_touches_only_those_files(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path, 50)
    run(indexer, root, stores)
    (root / "src/m7.py").write_text("def seven():\n    return 'edited'\n")
    (root / "src/m8.py").unlink()
    (root / "src/added.py").write_text("def added():\n    pass\n")
    report = run(
        indexer, root, stores, changed_paths=["src/m7.py", root / "src/m8.py", "src/added.py"]
    )
    assert report.changed_paths_run
    assert (report.files_read, report.files_chunked, report.files_removed) == (2, 2, 1)
    assert report.file_count == 50
    assert [r.metadata["file"] for r in stores.bm25.search("edited", 5)] == ["src/m7.py"]
    assert "src/m8.py" not in stores.files()


def test_changed_directory_is_walked_below_it_only(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path, 10)
    run(indexer, root, stores)
    make_tree(root, {"newpkg/a.py": "def a():\n    pass\n", "newpkg/b.py": "def b():\n    pass\n"})
    report = run(indexer, root, stores, changed_paths=["newpkg"])
    assert (report.files_read, report.file_count) == (2, 12)
    (root / "newpkg/a.py").unlink()
    (root / "newpkg/b.py").unlink()
    (root / "newpkg").rmdir()
    report = run(indexer, root, stores, changed_paths=["newpkg"])
    assert (report.files_removed, report.file_count) == (2, 10)


def test_changed_ignore_file_reevaluates_its_directory(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path, 4)
    run(indexer, root, stores)
    (root / "src/.gitignore").write_text("m1.py\n")
    run(indexer, root, stores, changed_paths=["src/.gitignore"])
    assert "src/m1.py" not in stores.files()
    (root / "src/.gitignore").unlink()
    run(indexer, root, stores, changed_paths=["src/.gitignore"])
    assert "src/m1.py" in stores.files()


def test_changed_paths_outside_the_root_or_ignored_are_refused(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path / "root", 2)
    make_tree(tmp_path, {"outside.py": "x = 1\n", "root/node_modules/m.js": "x"})
    run(indexer, root, stores)
    report = run(
        indexer,
        root,
        stores,
        changed_paths=[tmp_path / "outside.py", "../outside.py", "node_modules/m.js"],
    )
    assert report.files_read == 0
    assert stores.files() == {"src/m0.py", "src/m1.py"}


def test_clear_hashes_forces_a_full_reindex(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    root = tree(tmp_path)
    run(indexer, root, stores)
    indexer.clear_hashes()
    report = run(indexer, root, stores)
    assert (report.files_read, report.files_chunked) == (5, 5)
    assert report.file_count == 5


def test_a_new_root_replaces_the_old_one(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    run(indexer, tree(tmp_path / "one", 3), stores)
    other = make_tree(tmp_path / "two", {"b.md": "# Other\ntext"})
    run(indexer, other, stores)
    assert stores.files() == {"b.md"}


def test_concurrent_searches_never_see_a_mix_of_generations(tmp_path: Path) -> None:
    stores, indexer = Stores(), FileIndexer()
    names = [f"f{i}.txt" for i in range(20)]
    root = make_tree(tmp_path, {name: "marker generation0" for name in names})
    run(indexer, root, stores)
    stop = threading.Event()
    observed: list[set[str]] = []

    def reader() -> None:
        while not stop.is_set():
            for store in (stores.bm25, stores.kb):
                results = store.search("marker", 100)
                observed.append({r.content for r in results})

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        for generation in range(1, 16):
            for name in names:
                (root / name).write_text(f"marker generation{generation}")
                os.utime(root / name, (1_600_000_000 + generation, 1_600_000_000 + generation))
            run(indexer, root, stores)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert observed
    assert [seen for seen in observed if len(seen) != 1] == []


def test_worker_processes_give_exactly_the_serial_result(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        f"pkg{i % 7}/mod{i}.py": f"class C{i}:\n    def m(self):\n        return {i}\n"
        for i in range(300)
    }
    files["notes/readme.md"] = "# Notes\n\nSome text.\n"
    files["blob.dat"] = b"\x00\x01binary"
    root = make_tree(tmp_path, files)
    serial, parallel = Stores(), Stores()
    serial_report = run(FileIndexer(workers=1), root, serial)
    parallel_report = run(FileIndexer(workers=2), root, parallel)
    assert {d.id: d for d in parallel.kb.list()} == {d.id: d for d in serial.kb.list()}
    assert parallel_report.files_read == serial_report.files_read == 302
    assert [s.path for s in parallel_report.skipped] == [s.path for s in serial_report.skipped]


def test_a_broken_worker_pool_falls_back_to_the_calling_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(300)}
    root = make_tree(tmp_path, files)
    monkeypatch.setattr("sys.executable", "/bin/false")  # every worker exits at once
    stores = Stores()
    report = run(FileIndexer(workers=2), root, stores)
    assert (report.file_count, report.files_chunked) == (300, 300)
    assert len(stores.files()) == 300


def test_files_skipped_anyway_do_not_count_towards_the_source_caps(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {"a.txt": "small text", "huge.bin.zip": b"\x00" * 5000, "big.txt": "x" * 5000},
    )
    indexer = FileIndexer(Limits(max_total_bytes=1000, max_file_bytes=2000, max_files=1))
    report = run(indexer, root, Stores())
    assert report.file_count == 1
    assert {s.path: s.reason for s in report.skipped} == {
        "huge.bin.zip": SkipReason.BINARY,
        "big.txt": SkipReason.TOO_LARGE,
    }


def test_files_without_a_grammar_are_counted_by_language(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "src/app.py": "def main():\n    return 1\n",
            "tools/a.pl": "print 1;\n" * 400,  # several windows: one file
            "tools/b.pl": "print 2;\n",
            "db/schema.sql": "create table t (id int);\n",
        },
    )
    indexer, stores = FileIndexer(workers=1), Stores()
    run(indexer, root, stores)
    assert indexer.windowed_languages == {"perl": 2, "sql": 1}
    (root / "tools" / "b.pl").write_text("print 3;\nprint 4;\n")
    (root / "db" / "schema.sql").unlink()
    run(indexer, root, stores, changed_paths=[root / "tools/b.pl", root / "db/schema.sql"])
    assert indexer.windowed_languages == {"perl": 2}
    _, records, skips = indexer.export_records()
    restored = FileIndexer(workers=1)
    documents = {d.id: d for d in stores.kb.list()}
    restored.restore_records(root, records, skips, documents)
    assert restored.windowed_languages == {"perl": 2}
    assert sum(d.metadata["file"] == "tools/a.pl" for d in documents.values()) > 1


def _ledger_tree(folder: Path) -> Path:
    """300 small Python files: enough for an index run to use worker processes."""
    files: dict[str, str | bytes] = {
        f"pkg{i % 7}/mod{i}.py": (
            f"class Ledger{i}:\n    def reconcile_entry_{i % 11}(self, amount):\n"
            f"        return amount * {i}\n\n\ndef helper_{i % 5}():\n    return 'token{i}'\n"
        )
        for i in range(300)
    }
    return make_tree(folder, files)


def test_a_run_with_workers_encodes_the_code_stream_while_they_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code stream's analysis is done in groups as the workers' results come in (each
    commit, partial or final, takes whole groups), and gives the index a serial run gives."""
    monkeypatch.setattr("ragls.ingest.indexer.PREPARE_DOCUMENTS", 40)
    root = _ledger_tree(tmp_path / "tree")

    def index(workers: int) -> CodeStream:
        stores, code = Stores(), CodeStream()
        cadence = PartialCommits(seconds=0.0, min_files=16)
        report = FileIndexer(workers=workers).index(
            KnowledgeSourceConfig(root), stores.kb, stores.bm25, streams=[code], partial=cadence
        )
        assert report.chunk_count == len(code) > 300
        return code

    serial, parallel = index(1), index(2)
    prepared = parallel.shared.prepared
    assert prepared.documents_prepared == prepared.documents_used == len(parallel)
    assert len(prepared) == 0  # nothing left over once the run ended
    assert serial.shared.prepared.documents_prepared == 0  # no workers: nothing to overlap
    for query in ("reconcile entry amount", "Ledger42", "helper token7", "pkg3 mod10"):
        assert [(r.document.id, r.score) for r in parallel.search(query, 20)] == [
            (r.document.id, r.score) for r in serial.search(query, 20)
        ]


def test_the_code_stream_encodes_texts_before_they_go_to_the_spill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With texts held in the spill file, a run with workers encodes each chunk from the text
    it received, not by reading it back from the file (it did, 55,000 reads at 1x)."""
    from ragls.core import code_stream, spill

    monkeypatch.setattr(spill, "_configured", spill.TextSpill(tmp_path / "spill"))
    encoded: list[Document] = []
    encode = code_stream.encode_documents

    def recording(documents: list[Document], *args: object) -> object:
        encoded.extend(documents)
        return encode(documents, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(code_stream, "encode_documents", recording)
    stores, code = Stores(), CodeStream()
    root = _ledger_tree(tmp_path / "tree")
    FileIndexer(workers=2).index(
        KnowledgeSourceConfig(root), stores.kb, stores.bm25, streams=[code]
    )
    held = [code.get(document.id) for document in encoded]
    assert len(encoded) == len(code) > 300
    assert not any(isinstance(document, spill.SpilledDocument) for document in encoded)
    spilled = [isinstance(document, spill.SpilledDocument) for document in held]
    assert sum(spilled) >= 300  # the longer chunks (short ones stay in memory)
    assert [d.content for d in encoded] == [d.content for d in held]  # type: ignore[union-attr]


def test_a_run_with_workers_keeps_its_objects_from_the_collector_until_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each group of documents handed to the code stream freezes what the process holds (the
    collector's full passes skip it); the run's end unfreezes it all; a serial run does neither."""
    import gc

    monkeypatch.setattr("ragls.ingest.indexer.PREPARE_DOCUMENTS", 100)
    frozen: list[int] = []
    freeze = gc.freeze

    def counting() -> None:
        freeze()
        frozen.append(gc.get_freeze_count())

    monkeypatch.setattr(gc, "freeze", counting)
    root = _ledger_tree(tmp_path / "tree")
    for workers, groups in ((1, 0), (2, 4)):
        frozen.clear()
        stores, code = Stores(), CodeStream()
        FileIndexer(workers=workers).index(
            KnowledgeSourceConfig(root), stores.kb, stores.bm25, streams=[code]
        )
        assert len(frozen) >= groups and all(count > 0 for count in frozen)
        assert bool(frozen) == (workers > 1)
        assert gc.get_freeze_count() == 0

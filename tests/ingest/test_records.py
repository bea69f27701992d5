"""The committed records a changed-paths run stages over (ragls.ingest.records): the same
answers as plain dictionaries, and work that follows the paths touched, not the source's size."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragls.core.documents import Document
from ragls.ingest.admission import Skipped, SkipReason
from ragls.ingest.fingerprint import FileRecord
from ragls.ingest.indexer import FileIndexer
from ragls.ingest.records import FileRecords, PathMap, PathTree, Skips
from tests.ingest.test_indexer import Stores, run
from tests.ingest.trees import make_tree

NAMES = ["a", "a/b", "a/b/c", "a/b/d", "a/e", "f", "f/g", "f/g/h", "i"]


def record(size: int, chunks: int, skipped: bool = False) -> FileRecord:
    documents = tuple(Document(f"c{size}-{n}", "text", {}) for n in range(chunks))
    skip = Skipped("x", SkipReason.BINARY, "") if skipped else None
    return FileRecord("digest", size, 0, 0, 0, 0, documents, skip)


def below(paths: set[str], path: str) -> set[str]:
    return {p for p in paths if not path or p == path or p.startswith(f"{path}/")}


def totals(records: dict[str, FileRecord]) -> tuple[int, int, int, int]:
    kept = [r for r in records.values() if r.skip is None]
    return (
        len(kept),
        sum(len(r.documents) for r in records.values()),
        sum(r.size for r in kept),
        sum(r.size for r in records.values()),
    )


def test_path_tree_lists_every_path_at_or_below_a_path_as_paths_come_and_go() -> None:
    rng = random.Random(7)
    tree, model = PathTree(), set()
    for _ in range(3000):
        path = rng.choice(NAMES)
        if rng.random() < 0.55:
            tree.add(path)
            model.add(path)
        else:
            tree.discard(path)
            model.discard(path)
        probe = rng.choice(["", *NAMES, "a/b/c/z", "zz"])
        assert sorted(tree.below(probe)) == sorted(below(model, probe)), probe


def test_staged_changes_read_through_and_commit_in_place_with_the_same_totals() -> None:
    rng = random.Random(11)
    model: dict[str, FileRecord] = {}
    base = FileRecords()
    for _ in range(200):
        staged, expected = base.stage(), dict(model)
        for _ in range(rng.randint(0, 6)):
            path = rng.choice(NAMES)
            if rng.random() < 0.6:
                new = record(rng.randint(1, 99), rng.randint(0, 3), rng.random() < 0.2)
                staged[path], expected[path] = new, new
            elif path in expected:
                del staged[path], expected[path]
            else:
                with pytest.raises(KeyError):
                    del staged[path]
        assert dict(staged.items()) == expected
        assert len(staged) == len(expected)
        measured = (staged.files, staged.chunks, staged.file_bytes, staged.all_bytes)
        assert measured == totals(expected)
        assert dict(base.items()) == model, "the base changed before the commit"
        if rng.random() < 0.8:  # else the run failed: its stage is dropped
            assert staged.commit() is base
            model = expected
        assert dict(base.items()) == model
        assert (base.files, base.chunks, base.file_bytes, base.all_bytes) == totals(model)
        probe = rng.choice(["", *NAMES])
        assert sorted(base.below(probe)) == sorted(below(set(model), probe))


def test_path_map_replaces_and_drops_values() -> None:
    skips: PathMap[str] = PathMap({"a/b": "one", "c": "two"})
    skips.put("a/b", "three")
    skips.drop("missing")
    skips.drop("c")
    assert dict(skips.items()) == {"a/b": "three"}
    assert skips.below("a") == ["a/b"]


class CountingRecords(FileRecords):
    """Counts whole passes over the committed records."""

    passes = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        CountingRecords.passes += 1
        return super().__iter__()


def test_a_changed_paths_run_never_walks_every_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        f"pkg{d}/m{i}.py": f"def f{d}_{i}():\n    return {i}\n" for d in range(4) for i in range(50)
    }
    files["pkg0/data.bin"] = "\x00binary"
    root = make_tree(tmp_path, files)
    stores, indexer = Stores(), FileIndexer(workers=1)
    monkeypatch.setattr("ragls.ingest.indexer.FileRecords", CountingRecords)
    first = run(indexer, root, stores)
    assert first.file_count == 200
    CountingRecords.passes = 0
    (root / "pkg1/m3.py").write_text("def changed():\n    return 'zqx'\n")
    (root / "pkg2/m4.py").unlink()
    (root / "pkg3/new.py").write_text("def added():\n    return 1\n")
    report = run(
        indexer,
        root,
        stores,
        changed_paths=[root / "pkg1/m3.py", root / "pkg2/m4.py", root / "pkg3/new.py"],
    )
    assert CountingRecords.passes == 0
    assert (report.file_count, report.files_read, report.files_removed) == (200, 2, 1)
    assert report.chunk_count == len(stores.ids())
    assert report.total_bytes == sum(p.stat().st_size for p in root.rglob("*.py"))
    assert "pkg0/data.bin" in {s.path for s in report.skipped}
    assert stores.files() == {f for f in files if f.endswith(".py") and f != "pkg2/m4.py"} | {
        "pkg3/new.py"
    }
    # A directory event still finds everything recorded below it, without a whole pass.
    for path in list((root / "pkg2").iterdir()):
        path.unlink()
    (root / "pkg2").rmdir()
    report = run(indexer, root, stores, changed_paths=[root / "pkg2"])
    assert CountingRecords.passes == 0
    assert report.files_removed == 49 and report.file_count == 151
    assert not any(f.startswith("pkg2/") for f in stores.files())
    # The full run that follows agrees with what the changed-paths runs kept.
    again = FileIndexer(workers=1)
    fresh = run(again, root, Stores())
    assert (fresh.file_count, fresh.chunk_count, fresh.total_bytes) == (
        report.file_count,
        report.chunk_count,
        report.total_bytes,
    )
    assert indexer.indexed_files() == again.indexed_files()


def test_skips_count_their_reasons_as_they_change() -> None:
    skips = Skips({"a.bin": Skipped("a.bin", SkipReason.BINARY, "")})
    skips.put("b.bin", Skipped("b.bin", SkipReason.BINARY, ""))
    skips.put("a.bin", Skipped("a.bin", SkipReason.TOO_LARGE, "big"))
    assert skips.reasons == {"binary": 1, "too-large": 1}
    skips.drop("b.bin")
    skips.drop("b.bin")
    assert skips.reasons == {"too-large": 1}

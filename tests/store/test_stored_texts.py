"""A stored generation's texts are read from its part file, checked as a decoded part is."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from ragls.store import codec, stored_texts
from ragls.store.embedded import POINTER, EmbeddedStore
from ragls.store.interface import DOCUMENT_TEXTS, Snapshot
from ragls.store.stored_texts import StoredTexts

LENGTH = struct.Struct("<Q")  # a part's counts and lengths (docs/storage.md, "The format")
TEXTS = [
    "",
    "def charge(card):\n    return gateway.charge(card)\n" * 3,
    "caf\u00e9 \u2603 \U0001d11e \u2039redacted:aws-access-key\u203a",
    "a name with a lone surrogate \udcff from a file system",
    *(f"chunk {number}: " + "x" * number for number in range(30)),
    "last \u2039redacted:password\u203a",
]


def snapshot(generation: int, texts: list[str]) -> Snapshot:
    return Snapshot(generation, "key", {}, {DOCUMENT_TEXTS: texts, "service": {"root": None}})


def loaded_texts(store: EmbeddedStore) -> object:
    loaded = store.load("key").snapshot
    assert loaded is not None
    return loaded.objects[DOCUMENT_TEXTS]


def part_file(store: EmbeddedStore) -> Path:
    generation = json.loads((store.folder / POINTER).read_text())["generation"]
    return store.folder / generation / DOCUMENT_TEXTS


def test_texts_come_back_from_the_part_file_while_and_after_the_load(
    store: EmbeddedStore,
) -> None:
    store.save(snapshot(1, TEXTS))
    texts = loaded_texts(store)
    assert isinstance(texts, StoredTexts)
    assert list(texts) == TEXTS
    assert texts.holding("\u2039redacted:") == [2, len(TEXTS) - 1]
    texts.release()  # from here on every text is read from the file
    assert list(texts) == TEXTS
    assert [texts.text(s, e) for s, e in zip(texts.starts, texts.ends, strict=True)] == TEXTS
    assert texts.holding("\u2039redacted:") == []  # only while the load holds the bytes


def test_texts_outlive_their_generation_folder(store: EmbeddedStore) -> None:
    store.save(snapshot(1, TEXTS))
    first = part_file(store)
    texts = loaded_texts(store)
    assert isinstance(texts, StoredTexts)
    texts.release()
    store.save(snapshot(2, [text.upper() for text in TEXTS]))
    assert not first.exists()  # the newer generation replaced it
    assert list(texts) == TEXTS


def test_a_part_file_changed_after_the_load_never_raises(store: EmbeddedStore) -> None:
    store.save(snapshot(1, TEXTS))
    texts = loaded_texts(store)
    assert isinstance(texts, StoredTexts)
    texts.release()
    path = part_file(store)
    start = int(texts.starts[1])
    with path.open("r+b") as handle:  # someone writes into the cache folder
        handle.seek(start)
        handle.write(b"\xff\xfe")
    assert texts[1].startswith("\ufffd\ufffd")
    os.truncate(path, int(texts.starts[-1]) + 2)
    assert texts[len(TEXTS) - 1] == TEXTS[-1][:2]
    os.truncate(path, 0)
    assert texts[len(TEXTS) - 1] == ""


def test_a_list_holding_a_nul_is_decoded_as_before(store: EmbeddedStore) -> None:
    held = [*TEXTS, "a text with a \x00 in it"]
    store.save(snapshot(1, held))
    assert loaded_texts(store) == held


def test_a_short_list_stays_in_the_skeleton_and_is_decoded(store: EmbeddedStore) -> None:
    store.save(snapshot(1, TEXTS[:3]))
    assert loaded_texts(store) == TEXTS[:3]


def of(data: bytes, tmp_path: Path) -> StoredTexts | None:
    path = tmp_path / "part"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return StoredTexts.of(fd, bytearray(data))
    except BaseException:
        os.close(fd)
        raise


def test_a_table_that_lies_about_its_strings_is_refused(tmp_path: Path) -> None:
    data = bytearray(codec.encode(TEXTS))
    head = LENGTH.unpack_from(data, 0)[0]
    count_at = LENGTH.size + head
    LENGTH.pack_into(data, count_at, len(TEXTS) + 1)
    claims = f"claims {len(TEXTS) + 1} strings and holds {len(TEXTS)}"
    with pytest.raises(codec.DecodeError, match=claims):
        of(bytes(data), tmp_path)


def test_a_table_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    data = bytearray(codec.encode(TEXTS))
    data[-3] = 0xFF
    with pytest.raises(codec.DecodeError, match="not UTF-8"):
        of(bytes(data), tmp_path)


def test_a_table_with_bytes_after_it_is_refused(tmp_path: Path) -> None:
    with pytest.raises(codec.DecodeError, match="1 bytes follow the last table"):
        of(codec.encode(TEXTS) + b"\x00", tmp_path)


def test_other_parts_are_left_to_the_decoder(tmp_path: Path) -> None:
    assert of(codec.encode({"a": TEXTS}), tmp_path) is None
    assert of(codec.encode([{"file": "a.py"}] * 20), tmp_path) is None
    assert of(b"\x01", tmp_path) is None


def test_long_tables_are_split_and_checked_a_segment_at_a_time(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stored_texts, "_STEP", 3)  # segments far shorter than the texts
    store.save(snapshot(1, TEXTS))
    texts = loaded_texts(store)
    assert isinstance(texts, StoredTexts)
    assert list(texts) == TEXTS

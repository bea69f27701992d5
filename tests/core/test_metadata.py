"""Document metadata held compactly: a read-only mapping that behaves as the dict it replaced."""

from __future__ import annotations

import pickle
import sys
from types import MappingProxyType

import numpy as np
import pytest

from ragls.core import metadata
from ragls.core.documents import Document
from ragls.core.metadata import Metadata, compact
from ragls.store import codec

CODE = {
    "file": "src/app.py",
    "format": "code",
    "language": "python",
    "start_line": "10",
    "end_line": "14",
    "symbol": "App.run",
    "kind": "method",
}


def test_it_reads_as_the_dict_it_was_made_from() -> None:
    held = Document("a", "text", dict(CODE)).metadata
    assert isinstance(held, Metadata)
    assert held == CODE
    assert CODE == held  # noqa: SIM300 - the dict's side of the comparison
    assert dict(held) == CODE and held.copy() == CODE
    assert list(held) == list(CODE) and list(held.items()) == list(CODE.items())
    assert len(held) == 7 and "symbol" in held and "nope" not in held
    assert held["kind"] == "method" and held.get("kind") == "method"
    assert held.get("nope") is None and held.get("nope", "x") == "x"
    with pytest.raises(KeyError):
        held["nope"]
    assert held | {"kind": "function"} == CODE | {"kind": "function"}
    assert held != {**CODE, "kind": "function"}


def test_it_is_read_only_and_unhashable() -> None:
    held = compact(dict(CODE))
    with pytest.raises(TypeError):
        held["file"] = "other.py"  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(held)


def test_it_pickles_as_a_plain_dict_and_documents_round_trip() -> None:
    document = Document("a", "text", dict(CODE))
    assert pickle.loads(pickle.dumps(document.metadata)) == CODE
    assert type(pickle.loads(pickle.dumps(document.metadata))) is dict
    again = pickle.loads(pickle.dumps(document))
    assert again == document and again.metadata == CODE


def test_mappings_with_the_same_keys_share_one_layout_and_hold_only_their_values() -> None:
    first = compact(dict(CODE))
    second = compact({**CODE, "symbol": "App.stop"})
    assert isinstance(first, Metadata) and isinstance(second, Metadata)
    assert first._layout is second._layout
    as_dict = sys.getsizeof(dict(CODE)) + sys.getsizeof(MappingProxyType(dict(CODE)))
    as_object_and_tuple = sys.getsizeof(object()) + 16 + sys.getsizeof(tuple(CODE.values()))
    assert type(first) is type(second) and not hasattr(first, "__dict__")
    assert sys.getsizeof(first) < as_object_and_tuple and sys.getsizeof(first) * 3 < as_dict
    assert first._values == tuple(CODE.values())


@pytest.mark.parametrize("keys", [(), ("file",), ("file", "format"), tuple(CODE)])
def test_layouts_of_any_size_read_back_their_values(keys: tuple[str, ...]) -> None:
    values = {key: CODE[key] for key in keys}
    held = compact(dict(values))
    assert isinstance(held, Metadata)
    assert held == values and dict(held) == values and len(held) == len(keys)
    assert [held[key] for key in keys] == [values[key] for key in keys]
    assert pickle.loads(pickle.dumps(held)) == values
    with pytest.raises(AttributeError):
        held.other = "x"  # type: ignore[attr-defined]


def test_past_the_layout_limit_a_mapping_is_a_read_only_dict_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metadata, "_layouts", {})
    monkeypatch.setattr(metadata, "MAX_LAYOUTS", 2)
    made = [compact({f"key{number}": "value"}) for number in range(3)]
    assert [isinstance(held, Metadata) for held in made] == [True, True, False]
    assert made[2] == {"key2": "value"}
    with pytest.raises(TypeError):
        made[2]["key2"] = "other"  # type: ignore[index]


RECORDS = [
    CODE,
    {**CODE, "symbol": "App.stop", "start_line": "20"},
    {},
    {"file": "README.md", "format": "markdown", "start_line": "1", "end_line": "9"},
    {"format": "markdown", "file": "docs/a.md", "start_line": "1", "end_line": "3"},  # other order
    {**CODE, "file": "src/other.py"},
]


def from_table(records: list[dict[str, str]]) -> list[object]:
    table = codec.decode(codec.encode(records), record_tables=True)
    assert isinstance(table, codec.RecordTable)
    return metadata.compact_records(table.strings, table.numbers, table.sizes)


def test_records_read_from_a_stored_table_are_what_compact_makes_of_them() -> None:
    records = RECORDS * 5  # a table (16 records or more)
    made = from_table(records)
    expected = [compact(dict(record)) for record in records]
    assert made == expected
    assert [list(held) for held in made] == [list(record) for record in records]  # key order
    for held, plain in zip(made, expected, strict=True):
        assert type(held) is type(plain)
        if isinstance(held, Metadata):
            assert held._layout is plain._layout  # type: ignore[attr-defined]
    assert [Document.restored(f"d{n}", "text", held) for n, held in enumerate(made)] == [
        Document(f"d{n}", "text", record) for n, record in enumerate(records)
    ]


def test_records_are_read_a_batch_at_a_time_and_many_key_sets_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metadata, "_SHAPES_AT_ONCE", 2)
    monkeypatch.setattr(metadata, "_BATCH", 6)
    records = [{f"key{number % 7}": str(number), "file": "a.py"} for number in range(40)]
    records += RECORDS * 3
    assert from_table(records) == records


def test_a_table_that_no_dict_was_written_as_is_refused() -> None:
    with pytest.raises(ValueError, match="names a key twice"):
        metadata.compact_records(["file", "a.py"], np.array([0, 1, 0, 1], np.uint32), [2])
    with pytest.raises(ValueError, match="do not add up"):
        metadata.compact_records(["file", "a.py"], np.array([0, 1, 0], np.uint32), [2])
    with pytest.raises(ValueError, match="do not add up"):
        metadata.compact_records(["file", "a.py"], np.array([0, 1], np.uint32), [2, -1])

"""The object codec (ragls.store.codec): plain values round-trip, and bytes that claim more
than they hold are refused before anything of that size is allocated."""

from __future__ import annotations

import json
import struct
import tracemalloc

import pytest

from ragls.store import codec

U64 = struct.Struct("<Q")


def head(value: object, tables: list[object]) -> bytes:
    text = json.dumps({"value": value, "tables": tables}).encode()
    return U64.pack(len(text)) + text


def test_plain_values_round_trip() -> None:
    value = {
        "texts": [f'line {i}\nwith "quotes" \\ and \U0001f600' for i in range(40)],
        "odd": ["bad \udcff name", "nul\x00inside", *map(str, range(20))],
        "metadata": [{"file": f"a/{i % 3}.py", "kind": "function"} for i in range(50)],
        "records": [("a.py", 1, ["x", "y"], None)] * 3,
        "empty": [],
        "short": ["a", "b"],
        "number": 1.5,
    }
    assert codec.decode(codec.encode(value)) == codec.plain(value)
    strings = [f"id-{i}" for i in range(100)]
    assert codec.decode(codec.encode(strings)) == strings
    assert codec.decode(codec.encode([""] * 20)) == [""] * 20


def test_shared_metadata_strings_come_back_as_one_object() -> None:
    records = codec.decode(codec.encode([{"file": "pkg/module.py"} for _ in range(30)]))
    assert isinstance(records, list)
    assert len({id(value) for record in records for value in record.values()}) == 1


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (U64.pack(1 << 62), "the skeleton claims"),
        (head(None, [{"path": [], "kind": "strings"}]) + U64.pack(1 << 60) + U64.pack(0), "claims"),
        (head(None, [{"path": [], "kind": "strings"}]) + U64.pack(3) + U64.pack(1 << 50), "claims"),
        (
            head(None, [{"path": [], "kind": "records", "sizes": [1]}])
            + U64.pack(1)
            + U64.pack(1)
            + b"k"
            + U64.pack(1 << 61),
            "claims",
        ),
        (
            head(None, [{"path": [], "kind": "records", "sizes": [1]}])
            + U64.pack(1)
            + U64.pack(1)
            + b"k"
            + U64.pack(2)
            + struct.pack("<II", 0, 7),
            "names string 7 of 1",
        ),
        (head(None, [{"path": ["x"], "kind": "strings"}]) + U64.pack(0) + U64.pack(0), "no null"),
        (head([], []) + b"extra", "follow the last table"),
        (b"(\xff\xff\xff\x7f", "the part ends"),  # the five bytes that made marshal allocate
    ],
)
def test_bytes_that_claim_more_than_they_hold_are_refused_cheaply(data: bytes, reason: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(codec.DecodeError, match=reason):
            codec.decode(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_a_deeply_nested_skeleton_is_refused() -> None:
    nested = b"[" * 200_000 + b"]" * 200_000
    text = b'{"value":' + nested + b',"tables":[]}'
    with pytest.raises(codec.DecodeError, match="not JSON"):
        codec.decode(U64.pack(len(text)) + text)

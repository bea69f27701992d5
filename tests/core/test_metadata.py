"""Document metadata held compactly: a read-only mapping that behaves as the dict it replaced."""

from __future__ import annotations

import pickle
import sys
from types import MappingProxyType

import pytest

from ragls.core import metadata
from ragls.core.documents import Document
from ragls.core.metadata import Metadata, compact

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
    compacted = sys.getsizeof(first) + sys.getsizeof(first._values)
    assert compacted * 2 < as_dict


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

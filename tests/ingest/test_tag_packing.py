"""Packing a file's reference matches (ragls.ingest.tags.packing): once per name node, in
source order, with the first match's kind, lines and UTF-16 columns, and the innermost
enclosing definition; and the same through the packed FileSymbols."""

from __future__ import annotations

from ragls.core.symbols import FileSymbols, Reference
from ragls.ingest.tags.packing import Columns, ReferenceMatches, pack_references

KINDS = ("call", "class", "type")


def pack(
    source: bytes,
    matches: list[tuple[bytes, int, int]],
    spans: list[tuple[int, int, int]] | None = None,
) -> list[Reference]:
    """``matches``: (the name's text, which occurrence of it in ``source``, kind number)."""
    keys = []
    for text, occurrence, _ in matches:
        at = -1
        for _ in range(occurrence + 1):
            at = source.index(text, at + 1)
        keys.append((at, at + len(text)))
    found = ReferenceMatches(keys, [kind for _, _, kind in matches], KINDS, [])
    names, kinds, data = pack_references(found, spans or [], Columns(source), source)
    packed = FileSymbols(reference_names=names, reference_kinds=kinds, reference_data=data)
    return list(packed.references())


def test_no_matches_pack_to_nothing() -> None:
    assert pack(b"x = 1\n", []) == []


def test_each_name_once_in_source_order_with_the_first_kind_matched() -> None:
    source = b"a = load(b)\nsave(load(c))\n"
    found = pack(source, [(b"save", 0, 0), (b"load", 1, 1), (b"load", 0, 0), (b"load", 1, 0)])
    assert found == [
        Reference("load", "call", 0, 4, 8, -1),
        Reference("save", "call", 1, 0, 4, -1),
        Reference("load", "class", 1, 5, 9, -1),
    ]


def test_a_definitions_own_name_and_an_empty_name_are_no_references() -> None:
    source = b"def run():\n    run()\n"
    at, call = source.index(b"run"), source.rindex(b"run")
    keys = [(at, at + 3), (5, 5), (call, call + 3)]
    found = ReferenceMatches(keys, [0, 0, 0], KINDS, [(at, at + 3)])
    names, _, _ = pack_references(found, [], Columns(source), source)
    assert names == ("run",)


def test_the_enclosing_definition_is_the_innermost_holding_the_reference() -> None:
    source = b"class A:\n    def f(self):\n        g()\n    h()\ni()\n"
    outer = (0, source.index(b"i()"), 0)
    inner = (source.index(b"def f"), source.index(b"    h()"), 1)
    found = pack(source, [(b"g", 0, 0), (b"h", 0, 0), (b"i(", 0, 0)], [outer, inner])
    assert [(r.name, r.enclosing) for r in found] == [("g", 1), ("h", 0), ("i(", -1)]


def test_a_definition_that_ended_is_not_open_around_a_later_sibling() -> None:
    source = b"def a():\n    x()\ndef b():\n    def c():\n        y()\n    z()\n"
    first = (0, source.index(b"def b"), 0)
    second = (source.index(b"def b"), len(source), 1)
    nested = (source.index(b"def c"), source.index(b"    z()"), 2)
    found = pack(source, [(b"x", 0, 0), (b"y", 0, 0), (b"z", 0, 0)], [first, second, nested])
    assert [(r.name, r.enclosing) for r in found] == [("x", 0), ("y", 2), ("z", 1)]


def test_columns_count_utf16_code_units_on_lines_with_other_characters() -> None:
    source = "s = '\U0001f600é'; go(x)\nstay(y)\n".encode()
    found = pack(source, [(b"go", 0, 0), (b"stay", 0, 0)])
    # "go" starts at byte 14 of its line, after 11 UTF-16 code units (the emoji is two)
    assert [(r.line, r.column, r.end_column) for r in found] == [(0, 11, 13), (1, 0, 4)]


def test_a_name_over_two_lines_ends_where_its_last_line_does() -> None:
    source = b"x = f(a)\ny = `two\nlines`\n"
    found = pack(source, [(b"`two\nlines`", 0, 2)])
    assert found == [Reference("`two\nlines`", "type", 1, 4, 6, -1)]

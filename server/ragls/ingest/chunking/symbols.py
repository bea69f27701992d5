"""Structural units of source code from tree-sitter (SPEC §8): classes, functions, methods.

A symbol that fits in one chunk is one unit. A container (class, impl, module, namespace...) too
big for one chunk is split into its header (up to its first nested symbol), its nested symbols
(qualified ``Container.name``, function-like ones reported as ``method``) and the lines between
and after them. Lines outside every symbol (imports, module code) become unnamed units, so the
units always cover the whole file in order. Parsers are created lazily, one per thread.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Language, Node, Parser

from ragls.ingest.chunking.grammars import (
    CONTAINER_KINDS,
    GRAMMARS,
    NAME_TYPES,
    SYMBOL_KINDS,
    WRAPPER_TYPES,
)


@dataclass(frozen=True, slots=True)
class Unit:
    """Lines ``start``..``end`` (0-based, inclusive) and what they are."""

    start: int
    end: int
    symbol: str = ""
    kind: str = ""


_languages: dict[str, Language] = {}
_languages_lock = threading.Lock()
_local = threading.local()


def has_grammar(language: str) -> bool:
    return language in GRAMMARS


def _language(name: str) -> Language:
    with _languages_lock:
        language = _languages.get(name)
        if language is None:
            module_name, function = GRAMMARS[name]
            module = importlib.import_module(module_name)
            language = Language(getattr(module, function)())
            _languages[name] = language
        return language


def _parser(name: str) -> Parser:
    parsers: dict[str, Parser] = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(name)
    if parser is None:
        parser = Parser(_language(name))
        parsers[name] = parser
    return parser


def _name_of(node: Node) -> str:
    fields = ("name", "type") if node.type == "impl_item" else ("name",)  # impl Foo { ... }
    for field in fields:
        child = node.child_by_field_name(field)
        if child is not None and child.text:
            return child.text.decode("utf-8", "replace")
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in NAME_TYPES:
        # C/C++ declarators nest: function_declarator -> declarator -> identifier
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type in NAME_TYPES), None)
        declarator = inner
    if declarator is not None and declarator.text:
        return declarator.text.decode("utf-8", "replace")
    if node.type == "type_declaration":
        spec = next((c for c in node.named_children if c.type in ("type_spec", "type_alias")), None)
        if spec is not None:
            return _name_of(spec)
    return ""


def _symbol_of(node: Node) -> tuple[Node, str] | None:
    """(the node whose span counts, its kind) if ``node`` is a symbol or wraps one."""
    if node.type in WRAPPER_TYPES:
        inner = next((c for c in node.named_children if c.type in SYMBOL_KINDS), None)
        if inner is not None:
            return node, SYMBOL_KINDS[inner.type]
        return None
    kind = SYMBOL_KINDS.get(node.type)
    if kind is None:
        return None
    if kind in ("struct", "enum") and node.child_by_field_name("body") is None:
        return None  # a C "struct foo x;" mention, not a definition
    return node, kind


def _symbol_name(node: Node) -> str:
    if node.type in WRAPPER_TYPES:
        inner = next((c for c in node.named_children if c.type in SYMBOL_KINDS), None)
        return _name_of(inner) if inner is not None else ""
    return _name_of(node)


def _top_symbols(node: Node) -> Iterator[tuple[Node, str]]:
    """The outermost symbols below ``node`` (not descending into the symbols found)."""
    for child in node.named_children:
        found = _symbol_of(child)
        if found is not None:
            yield found
        else:
            yield from _top_symbols(child)


def code_units(text: str, language: str, max_lines: int) -> list[Unit]:
    """Units covering every line of ``text``, in order."""
    source = text.encode("utf-8")
    tree = _parser(language).parse(source)
    line_count = text.count("\n") + 1
    units: list[Unit] = []
    _collect(tree.root_node, "", False, 0, line_count - 1, max_lines, units)
    return units


def _collect(
    node: Node,
    prefix: str,
    in_container: bool,
    start: int,
    end: int,
    max_lines: int,
    units: list[Unit],
) -> None:
    """Append units for lines ``start..end`` of ``node``'s nested symbols and the gaps between."""
    cursor = start
    for symbol, kind in _top_symbols(node):
        first, last = symbol.start_point.row, symbol.end_point.row
        if last < cursor or first > end:
            continue
        first = max(first, cursor)
        if first > cursor:
            units.append(Unit(cursor, first - 1))
        name = _symbol_name(symbol)
        qualified = f"{prefix}.{name}" if prefix and name else (name or prefix)
        if kind == "function" and in_container:
            kind = "method"
        nested = list(_top_symbols(symbol)) if kind in CONTAINER_KINDS else []
        if last - first + 1 <= max_lines or not nested:
            units.append(Unit(first, last, qualified, kind))
        else:
            header_end = max(first, nested[0][0].start_point.row - 1)
            units.append(Unit(first, header_end, qualified, kind))
            _collect(symbol, qualified, True, header_end + 1, last, max_lines, units)
        cursor = last + 1
    if cursor <= end:
        units.append(Unit(cursor, end))

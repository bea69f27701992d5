"""Structural units of source code from tree-sitter (SPEC §8): classes, functions, methods.

What is a symbol, and its kind and name, is the data of ``grammars`` (node types, name fields)
and the per-language rules of ``symbol_rules``. A symbol that fits in one chunk is one unit. A
container (class, impl, module, namespace...) too big for one chunk is split into its header (up
to its first nested symbol), its nested symbols (qualified ``Container.name``; the functions of a
class-like container reported as ``method``) and the lines between and after them. Where the
grammar says so, adjacent clauses of one function are one unit. Lines outside every symbol
(imports, module code) become unnamed units, so the units always cover the whole file in order.
Each node is visited once (a container's insides once more when it is split); parsers are created
lazily, one per language and thread.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from ragls.ingest.chunking.c_macros import parse_c_family
from ragls.ingest.chunking.grammars import FUNCTION_CONTAINERS, GRAMMARS, NAME_TYPES, Grammar
from ragls.ingest.chunking.symbol_rules import RULES, Found
from ragls.ingest.chunking.symbol_rules import text as node_text


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


def grammar_language(name: str) -> Language:
    with _languages_lock:
        language = _languages.get(name)
        if language is None:
            grammar = GRAMMARS[name]
            module = importlib.import_module(grammar.module)
            language = Language(getattr(module, grammar.function)())
            _languages[name] = language
        return language


def _parser(name: str) -> Parser:
    parsers: dict[str, Parser] = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(name)
    if parser is None:
        parser = Parser(grammar_language(name))
        parsers[name] = parser
    return parser


def _name_of(node: Node, grammar: Grammar) -> str:
    for field in grammar.name_fields.get(node.type, ("name",)):
        child = node.child_by_field_name(field)
        if child is not None and child.text:
            return node_text(child)
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in NAME_TYPES:
        # C/C++ declarators nest: function_declarator -> declarator -> identifier
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type in NAME_TYPES), None)
        declarator = inner
    if declarator is not None and declarator.text:
        return node_text(declarator)
    if node.type == "type_declaration":
        spec = next((c for c in node.named_children if c.type in ("type_spec", "type_alias")), None)
        if spec is not None:
            return _name_of(spec, grammar)
    return ""


def _symbol_of(node: Node, grammar: Grammar) -> Found | None:
    """The symbol ``node`` is or wraps, if any; a node without a name is none."""
    node_type = node.type  # a new string each time it is read
    if node_type in grammar.wrappers:
        for child in node.named_children:
            inner = _symbol_of(child, grammar)
            if inner is not None:
                return Found(node, inner.kind, inner.name, inner.body, inner.last)
        return None
    kind = grammar.kinds.get(node_type, "")
    rule = grammar.rules.get(node_type)
    if rule is not None:
        return RULES[rule](node, kind)
    if not kind:
        return None
    if kind in ("struct", "enum", "union") and node.child_by_field_name("body") is None:
        return None  # a C "struct foo x;" mention, not a definition
    name = _name_of(node, grammar)
    return Found(node, kind, name, node) if name else None


def _top_symbols(node: Node, grammar: Grammar, bodies: MacroBodies) -> list[Found]:
    """The outermost symbols below ``node`` (not descending into the symbols found, nor into
    the later siblings a symbol spans), those of its macro calls' ``bodies`` included."""
    found: list[Found] = []
    _add_top_symbols(node, grammar, bodies, found)
    return found


def _add_top_symbols(node: Node, grammar: Grammar, bodies: MacroBodies, found: list[Found]) -> None:
    covered = -1
    for child in node.named_children:
        if child.start_byte < covered:
            continue
        symbol = _symbol_of(child, grammar)
        if symbol is not None:
            covered = (symbol.last or symbol.node).end_byte
            found.append(symbol)
        elif child.type in grammar.macro_bodies:
            found += _macro_symbols(child, grammar, bodies)
        elif child.named_child_count:  # a leaf holds no symbol
            _add_top_symbols(child, grammar, bodies, found)


def _macro_symbols(node: Node, grammar: Grammar, bodies: MacroBodies) -> list[Found]:
    """The outermost symbols inside a macro call's brace-delimited body (``cfg_rt! { ... }``),
    from its parse in ``bodies`` (:func:`macro_bodies`). Tokio declares much of its API inside
    such calls (``cfg_io_driver! { impl Builder {...} }``): without this, whole impl blocks were
    windows without a symbol."""
    body = next((c for c in node.named_children if c.type == grammar.macro_bodies[node.type]), None)
    parsed = None if body is None else bodies.get(body.start_point)
    return [] if parsed is None else _top_symbols(parsed[0].root_node, grammar, bodies)


def _last_row(found: Found) -> int:
    end = (found.last or found.node).end_point
    # A node that ends at the start of a line (an indented block) does not hold that line.
    if end.column == 0 and end.row > found.node.start_point.row:
        return end.row - 1
    return end.row


# Each brace-delimited macro body of a file, by where its opening brace stands (row, column:
# the file's own in every parse): the body's parse, placed at its own lines, and the shift that
# turns that parse's byte offsets into the file's.
MacroBodies = dict[tuple[int, int], tuple[Tree, int]]
# A macro body longer than this is left as it is (parsed again, it would cost as much as the
# file once more for every such body).
MACRO_BODY_BYTES = 1 << 20
_body_queries: dict[str, Query] = {}


def macro_bodies(tree: Tree, language: str) -> MacroBodies:
    """Each brace-delimited macro body of ``tree`` (``Grammar.macro_bodies``), nested ones
    too, parsed once on its own, placed where it stands in the file: the lines before it as
    newlines and its first line's indent as spaces, so that every row and column of its parse
    is the file's own. The chunker's units (:func:`code_units`) and the symbol index
    (``ragls.ingest.tags.extract.file_symbols``) read the same parses."""
    grammar = GRAMMARS[language]
    if not grammar.macro_bodies:
        return {}
    query = _body_queries.get(language)
    if query is None:
        pattern = " ".join(
            f"({call} ({body}) @body)" for call, body in grammar.macro_bodies.items()
        )
        query = _body_queries.setdefault(language, Query(grammar_language(language), pattern))
    found: MacroBodies = {}
    pending: list[tuple[Tree, int]] = [(tree, 0)]
    while pending:
        current, shift = pending.pop()
        nodes = QueryCursor(query).captures(current.root_node).get("body", [])
        for body in sorted(nodes, key=lambda node: node.start_byte):
            text = body.text
            if not text or text[:1] != b"{" or len(text) > MACRO_BODY_BYTES:
                continue
            row, column = body.start_point
            placed = b"\n" * row + b" " * (column + 1) + text[1:-1]
            inner = (
                _parser(language).parse(placed),
                shift + body.start_byte + 1 - row - column - 1,
            )
            found[body.start_point] = inner
            pending.append(inner)
    return found


def parse(source: bytes, language: str) -> Tree:
    """``source`` parsed with ``language``'s grammar (this thread's parser); C and C++ again
    without their declaration macros when that parses with fewer errors
    (:mod:`ragls.ingest.chunking.c_macros`)."""
    parser = _parser(language)
    if language in _C_FAMILY:
        return parse_c_family(source, parser.parse, _error_count)
    return parser.parse(source)


_C_FAMILY = frozenset(("c", "cpp"))


def _error_count(tree: Tree) -> int:
    """How many error and missing nodes ``tree`` holds, looking only along the paths that lead
    to one (an error node counts once, whatever it holds)."""
    count = 0
    pending = [tree.root_node]
    while pending:
        node = pending.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
            continue
        pending.extend(child for child in node.children if child.has_error)
    return count


def code_units(
    text: str,
    language: str,
    max_lines: int,
    tree: Tree | None = None,
    bodies: MacroBodies | None = None,
) -> list[Unit]:
    """Units covering every line of ``text``, in order; ``tree``: its parse, and ``bodies``:
    its :func:`macro_bodies`, if made already."""
    if tree is None:
        tree = parse(text.encode("utf-8"), language)
    if bodies is None:
        bodies = macro_bodies(tree, language)
    line_count = text.count("\n") + 1
    units: list[Unit] = []
    grammar = GRAMMARS[language]
    walk = _Walk(grammar, max_lines, units, bodies)
    walk.collect(_top_symbols(tree.root_node, grammar, bodies), "", False, 0, line_count - 1)
    return units


@dataclass(frozen=True, slots=True)
class _Walk:
    grammar: Grammar
    max_lines: int
    units: list[Unit]
    bodies: MacroBodies

    def collect(
        self, symbols: Iterable[Found], prefix: str, in_class: bool, start: int, end: int
    ) -> None:
        """Append units for lines ``start..end``: the ``symbols`` and the gaps between them."""
        units = self.units
        cursor = start
        for found in symbols:
            first, last = found.node.start_point.row, _last_row(found)
            if last < cursor or first > end:
                continue
            first = max(first, cursor)
            if first > cursor:
                units.append(Unit(cursor, first - 1))
            name = found.name
            qualified = f"{prefix}.{name}" if prefix else name
            kind = "method" if found.kind == "function" and in_class else found.kind
            split = last - first + 1 > self.max_lines and kind in self.grammar.containers
            nested = _top_symbols(found.body, self.grammar, self.bodies) if split else []
            if not nested:
                self._add(Unit(first, last, qualified, kind))
            else:
                header_end = max(first, nested[0].node.start_point.row - 1)
                units.append(Unit(first, header_end, qualified, kind))
                of_class = kind not in FUNCTION_CONTAINERS
                self.collect(nested, qualified, of_class, header_end + 1, last)
            cursor = last + 1
        if cursor <= end:
            units.append(Unit(cursor, end))

    def _add(self, unit: Unit) -> None:
        """Append ``unit``; with ``merge_clauses``, a clause of the symbol just before it (with
        only unnamed lines between) extends that symbol's unit instead."""
        units = self.units
        if self.grammar.merge_clauses:
            back = 2 if len(units) >= 2 and not units[-1].symbol else 1
            previous = units[-back] if len(units) >= back else None
            key = (unit.symbol, unit.kind)
            if previous is not None and (previous.symbol, previous.kind) == key:
                del units[-back:]
                unit = Unit(previous.start, unit.end, unit.symbol, unit.kind)
        units.append(unit)

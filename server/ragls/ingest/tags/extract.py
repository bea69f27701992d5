"""One file's definitions and references from its tree-sitter tree (SPEC §8, issue 28).

:func:`file_symbols` runs the language's tag queries (``ragls.ingest.tags.languages``) over the
tree the chunker already parsed, in the same process (a worker process in big runs): the file is
never parsed twice. Each match with a ``@name`` and a ``@definition.KIND`` or
``@reference.KIND`` capture is one symbol; a definition's container is the innermost definition
whose span holds it (qualified ``Outer.Inner``), a function inside a class-like container is a
``method``, a reference's enclosing definition the innermost one holding it. Matches of several
queries for the same name node count once, as the widest node any of them captured (a C
prototype is both a ``declaration`` and its ``function_declarator``: one definition, not one
nested in the other); references of the same name node count once, and a definition's own
name is not a reference. Where the grammar could not read a file and the language has a line
pattern (``TagQueries.fallback``), the pattern adds the functions the queries missed. Queries
are compiled once per process and language; a language without queries has no symbols.
"""

from __future__ import annotations

import importlib
import re
import sys
import threading
from array import array
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from tree_sitter import Node, Query, QueryCursor, Tree

from ragls.core.symbols import NO_SYMBOLS, Definition, FileSymbols
from ragls.ingest.chunking.grammars import GRAMMARS
from ragls.ingest.chunking.symbols import grammar_language
from ragls.ingest.tags.languages import CLASS_KINDS, QUERIES

_DEFINITION = "definition."
_REFERENCE = "reference."

_queries: dict[str, _Compiled | None] = {}
_fallbacks: dict[str, re.Pattern[bytes]] = {}
_queries_lock = threading.Lock()


def has_tags(language: str) -> bool:
    return language in QUERIES


def query_sources(language: str) -> list[str]:
    """The text of every tag query of ``language``, in order."""
    spec = QUERIES[language]
    modules = [*spec.also_wheels, *([GRAMMARS[language].module] if spec.wheel else [])]
    sources = []
    for module_name in modules:
        module = importlib.import_module(module_name)
        sources.append((Path(str(module.__file__)).parent / "queries" / "tags.scm").read_text())
    own = resources.files("ragls.ingest.tags").joinpath("queries")
    sources += [own.joinpath(name).read_text(encoding="utf-8") for name in spec.own]
    return sources


# Per pattern of a compiled query: (definition or not, kind, the capture) when the pattern has
# exactly one ``@definition.KIND``/``@reference.KIND`` capture and every match holds it once;
# _NO_ROLE when it has none (its matches are no symbols); None when a match must be looked at.
_Role = tuple[bool, str, str]
_NO_ROLE = (False, "", "")
_CAPTURE = re.compile(rb"@([\w.-]+)")


class _Compiled:
    """A language's tag query and what each of its patterns finds (see :func:`_roles`)."""

    __slots__ = ("query", "roles")

    def __init__(self, query: Query, text: str) -> None:
        self.query = query
        self.roles = _roles(query, text.encode("utf-8"))


def _roles(query: Query, text: bytes) -> tuple[_Role | None, ...]:
    """Each pattern's role, from its text and its captures' quantifiers, so that a match is
    read without looking at each of its captures. A reference capture whose every pattern has
    it as its one role, exactly once, and that no predicate reads is disabled: its node is never
    built (the pattern says its kind)."""
    quantifiers: list[dict[str, str]] = []
    for pattern in range(query.pattern_count):
        held: dict[str, str] = {}
        for index in range(query.capture_count):
            try:
                quantifier = query.capture_quantifier(pattern, index)
            except SystemError:  # a capture the pattern does not have (quantifier zero)
                continue
            held[query.capture_name(index)] = quantifier
        quantifiers.append(held)
    roles: list[_Role | None] = []
    for pattern, held in enumerate(quantifiers):
        start, end = query.start_byte_for_pattern(pattern), query.end_byte_for_pattern(pattern)
        written = {m.decode() for m in _CAPTURE.findall(text[start:end])} & set(held)
        found = [(capture, _role(capture)) for capture in sorted(written)]
        found_roles = [(capture, role) for capture, role in found if role is not None]
        if not found_roles and written == set(held):
            roles.append(_NO_ROLE)
        elif len(found_roles) == 1 and written == set(held) and held[found_roles[0][0]] == "":
            capture, (definition, kind) = found_roles[0]
            roles.append((definition, kind, capture))
        else:
            roles.append(None)
    read_by_predicates = {
        m.decode()
        for line in text.splitlines()
        if b"(#" in line
        for m in _CAPTURE.findall(line[line.index(b"(#") :])
    }
    for index in range(query.capture_count):
        capture = query.capture_name(index)
        role = _role(capture)
        if role is None or role[0] or capture in read_by_predicates:
            continue
        users = [pattern for pattern, held in enumerate(quantifiers) if capture in held]
        if all(roles[pattern] == (False, role[1], capture) for pattern in users):
            query.disable_capture(capture)
    return tuple(roles)


def _query(language: str) -> _Compiled | None:
    with _queries_lock:
        if language not in _queries:
            sources = query_sources(language) if has_tags(language) else []
            text = "\n".join(sources)
            _queries[language] = (
                _Compiled(Query(grammar_language(language), text), text) if text else None
            )
        return _queries[language]


class _Columns:
    """Byte columns as UTF-16 code units (LSP's default), cheap for ASCII sources."""

    def __init__(self, source: bytes) -> None:
        self.ascii = source.isascii()
        self._lines = None if self.ascii else source.split(b"\n")

    def __call__(self, row: int, column: int) -> int:
        if self._lines is None or row >= len(self._lines):
            return column
        prefix = self._lines[row][:column]
        if prefix.isascii():
            return column
        return len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2


def file_symbols(tree: Tree, source: bytes, language: str) -> FileSymbols:
    """The definitions and references of ``source``, parsed as ``tree`` (see module doc)."""
    compiled = _query(language)
    if compiled is None:
        return NO_SYMBOLS
    roles = compiled.roles
    # by name node (start byte, end byte): (kind, name node, node, its width) / (kind, name node)
    found_definitions: dict[tuple[int, int], tuple[str, Node, Node, int]] = {}
    found_references: dict[tuple[int, int], tuple[str, Node]] = {}
    for pattern, captures in QueryCursor(compiled.query).matches(tree.root_node):
        role = roles[pattern]
        if role is None:
            role = _match_role(captures)
            if role is None:
                continue
        elif role is _NO_ROLE:
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        key = name_node.byte_range
        definition, kind, capture = role
        if definition:
            nodes = captures.get(capture)
            if not nodes:
                continue
            node = nodes[0]
            width = node.end_byte - node.start_byte
            kept = found_definitions.get(key)
            if kept is None or width > kept[3]:
                found_definitions[key] = (kind, name_node, node, width)
        elif key not in found_references:
            found_references[key] = (kind, name_node)
    for key in found_definitions:  # a definition's own name is not a reference to it
        found_references.pop(key, None)
    fallback = QUERIES[language].fallback
    if not found_definitions and not found_references and not fallback:
        return NO_SYMBOLS
    columns = _Columns(source)
    merge = QUERIES[language].merge_clauses
    definitions, spans = _definitions(found_definitions.values(), columns, merge)
    packed = _references(found_references, spans, columns, source)
    if fallback and tree.root_node.has_error:
        definitions += _fallback_definitions(language, fallback, source, definitions, columns)
    if not definitions and not packed[0]:
        return NO_SYMBOLS
    return FileSymbols.packed(definitions, *packed)


def _fallback_definitions(
    language: str, pattern: str, source: bytes, found: list[Definition], columns: _Columns
) -> list[Definition]:
    """The functions the language's line pattern finds where the queries found none (a file
    the grammar could not read); each spans its name."""
    compiled = _fallbacks.get(language)
    if compiled is None:
        compiled = _fallbacks.setdefault(language, re.compile(pattern.encode(), re.MULTILINE))
    known = {(d.name, d.line) for d in found}
    added: list[Definition] = []
    line, counted = 0, 0
    for match in compiled.finditer(source):
        group = next(index for index, text in enumerate(match.groups(), 1) if text)
        start, end = match.span(group)
        line += source.count(b"\n", counted, start)
        counted = start
        name = source[start:end].decode("utf-8", "replace")
        if (name, line) in known:
            continue
        column = start - (source.rfind(b"\n", 0, start) + 1)
        end_column = column + end - start
        added.append(
            Definition(
                name,
                "function",
                "",
                line,
                columns(line, column),
                line,
                columns(line, end_column),
            )
        )
    return added


def _text(node: Node) -> str:
    if node.type == "operator_cast":  # C++'s `operator bool() const` is "operator bool"
        cast = node.child_by_field_name("type")
        return f"operator {_text(cast)}" if cast is not None else ""
    if node.type == "companion_object":  # Kotlin's unnamed `companion object`
        return "Companion"
    return node.text.decode("utf-8", "replace") if node.text else ""


@lru_cache(maxsize=256)
def _role(capture: str) -> tuple[bool, str] | None:
    """(whether a definition, its kind) of a ``@definition.KIND`` or ``@reference.KIND``
    capture; None for others (``@name``, ``@doc``...)."""
    if capture.startswith(_DEFINITION):
        return True, capture[len(_DEFINITION) :]
    if capture.startswith(_REFERENCE):
        return False, capture[len(_REFERENCE) :]
    return None


def _match_role(captures: dict[str, list[Node]]) -> _Role | None:
    """The role of a match whose pattern does not say it: its first role capture's."""
    for capture in captures:
        role = _role(capture)
        if role is not None:
            return role[0], role[1], capture
    return None


def _definitions(
    found: Iterable[tuple[str, Node, Node, int]], columns: _Columns, merge_clauses: bool = False
) -> tuple[list[Definition], list[tuple[int, int, int]]]:
    """Definitions in source order with their containers, and each one's (start byte, end
    byte, index) for the references' enclosing definitions. With ``merge_clauses``, a
    definition that follows one of the same name, kind and container with no other between
    (a Haskell function's next equation, an Elixir function's next clause) extends it."""
    ordered = sorted(
        found,
        key=lambda item: (item[2].start_byte, -item[2].end_byte, item[1].start_byte),
    )
    definitions: list[Definition] = []
    spans: list[tuple[int, int, int]] = []
    stack: list[tuple[int, str, str]] = []  # (end byte, qualified name, kind) of the open ones
    for kind, name_node, node, _ in ordered:
        name = _text(name_node)
        if not name:
            continue
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        container = stack[-1][1] if stack else ""
        if kind == "function" and stack and stack[-1][2] in CLASS_KINDS:
            kind = "method"
        start, end = name_node.start_point, node.end_point
        last = definitions[-1] if definitions else None
        if (
            merge_clauses
            and last is not None
            and (last.name, last.kind, last.container) == (name, kind, container)
            and spans[-1][1] <= node.start_byte
        ):
            definitions[-1] = last._replace(
                end_line=end.row, end_column=columns(end.row, end.column)
            )
            spans[-1] = (spans[-1][0], node.end_byte, spans[-1][2])
            stack.append((node.end_byte, f"{container}.{name}" if container else name, kind))
            continue
        definitions.append(
            Definition(
                name,
                kind,
                container,
                start.row,
                columns(start.row, start.column),
                end.row,
                columns(end.row, end.column),
            )
        )
        spans.append((node.start_byte, node.end_byte, len(definitions) - 1))
        stack.append((node.end_byte, f"{container}.{name}" if container else name, kind))
    return definitions, spans


def _references(
    found: dict[tuple[int, int], tuple[str, Node]],
    spans: list[tuple[int, int, int]],
    columns: _Columns,
    source: bytes,
) -> tuple[tuple[str, ...], tuple[str, ...], array[int]]:
    """The references ``found`` (by name bytes) packed in source order as
    :class:`FileSymbols` holds them: names, distinct kinds, and five numbers each. A name's
    bytes are decoded and interned once per file."""
    intern = sys.intern
    names: list[str] = []
    kinds: dict[str, int] = {}
    numbers: list[int] = []
    decoded: dict[bytes, str] = {}
    open_spans: list[tuple[int, int]] = []  # (end byte, definition index)
    next_span = 0
    next_start = spans[0][0] if spans else sys.maxsize  # where the next definition starts
    ascii_source = columns.ascii  # byte columns are UTF-16 columns
    for key in sorted(found):
        at, end_byte = key
        kind, name_node = found[key]
        text = source[at:end_byte]
        name = decoded.get(text)
        if name is None:
            if not text:
                continue
            if b"\n" in text:  # a name over several lines (never an identifier): as the tree says
                name = intern(_text(name_node))
                start, end = name_node.start_point, name_node.end_point
                row, column, end_column = start.row, start.column, end.column
            else:
                name = decoded[text] = intern(text.decode("utf-8", "replace"))
                row, column = name_node.start_point
                end_column = column + end_byte - at
        else:
            row, column = name_node.start_point
            end_column = column + end_byte - at
        if next_start <= at:  # definitions start before it: open them
            while next_span < len(spans) and spans[next_span][0] <= at:
                while open_spans and open_spans[-1][0] <= spans[next_span][0]:
                    open_spans.pop()
                open_spans.append((spans[next_span][1], spans[next_span][2]))
                next_span += 1
            next_start = spans[next_span][0] if next_span < len(spans) else sys.maxsize
        while open_spans and open_spans[-1][0] <= at:
            open_spans.pop()
        if not ascii_source:
            column, end_column = columns(row, column), columns(row, end_column)
        names.append(name)
        numbers += (
            kinds.setdefault(kind, len(kinds)),
            row,
            column,
            end_column,
            open_spans[-1][1] if open_spans else -1,
        )
    return tuple(names), tuple(kinds), array("i", numbers)

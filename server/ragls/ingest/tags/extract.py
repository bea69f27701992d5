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
are compiled once per process and language (``ragls.ingest.tags.compiled``, which also knows
each pattern's role, so that a match is read without looking at its captures); a language
without queries has no symbols. The symbols are packed as ``FileSymbols`` holds them
(``ragls.ingest.tags.packing``: the references' numbers computed over arrays).

What it costs, and what was done about it, is in docs/symbols.md ("Cost"):
``bench/symbols_extract.py`` profiles it, and hashes what it extracts to show that a faster
version extracts exactly the same.
"""

from __future__ import annotations

import re
import sys
from array import array

from tree_sitter import Node, QueryCursor, Tree

from ragls.core.symbols import NO_SYMBOLS, Definition, FileSymbols
from ragls.ingest.chunking.symbol_rules import CSHARP_NAMED_MEMBERS, csharp_member_name
from ragls.ingest.chunking.symbols import MacroBodies, macro_bodies
from ragls.ingest.tags.compiled import (
    NO_ROLE,
    CompiledQuery,
    compiled_query,
    match_role,
    query_sources,
)
from ragls.ingest.tags.languages import CLASS_KINDS, QUERIES
from ragls.ingest.tags.packing import Columns, PackedDefinitions, ReferenceMatches, pack_references

__all__ = ["file_symbols", "has_tags", "query_sources"]

_fallbacks: dict[str, re.Pattern[bytes]] = {}


def has_tags(language: str) -> bool:
    return language in QUERIES


def file_symbols(
    tree: Tree, source: bytes, language: str, bodies: MacroBodies | None = None
) -> FileSymbols:
    """The definitions and references of ``source``, parsed as ``tree`` (see module doc);
    ``bodies``: its macro bodies' parses (:func:`~ragls.ingest.chunking.symbols.macro_bodies`),
    if the chunker made them already."""
    compiled = compiled_query(language)
    if compiled is None:
        return NO_SYMBOLS
    # by name node (start byte, end byte): (node start byte, node end byte, kind, name, node)
    found_definitions: dict[tuple[int, int], tuple[int, int, str, Node, Node]] = {}
    # every reference match's name node (start byte, end byte) and kind number, in match order
    reference_keys: list[tuple[int, int]] = []
    reference_kinds: list[int] = []
    found = (found_definitions, reference_keys, reference_kinds)
    _collect(compiled, tree.root_node, 0, found)
    # Items inside macro calls (Rust's cfg_rt! { impl Builder {...} }), parsed where they stand
    # as the chunker parses them: their offsets shifted to the file's.
    if bodies is None:
        bodies = macro_bodies(tree, language)
    for inner, shift in bodies.values():
        _collect(compiled, inner.root_node, shift, found)
    fallback = QUERIES[language].fallback
    if not found_definitions and not reference_keys and not fallback:
        return NO_SYMBOLS
    columns = Columns(source)
    definitions = _definitions(
        found_definitions, source, columns, compiled.named_by_text, QUERIES[language].merge_clauses
    )
    references = pack_references(
        ReferenceMatches(reference_keys, reference_kinds, compiled.kinds, list(found_definitions)),
        definitions.spans,
        columns,
        source,
    )
    if fallback and tree.root_node.has_error:
        definitions.extend(_fallback_definitions(language, fallback, source, definitions, columns))
    if not definitions.names and not references[0]:
        return NO_SYMBOLS
    return FileSymbols(
        tuple(definitions.names),
        tuple(definitions.kinds),
        tuple(definitions.containers),
        array("i", definitions.numbers),
        *references,
    )


def _collect(
    compiled: CompiledQuery,
    root: Node,
    shift: int,
    found: tuple[
        dict[tuple[int, int], tuple[int, int, str, Node, Node]], list[tuple[int, int]], list[int]
    ],
) -> None:
    """Add the definitions and references the tag query matches under ``root`` to ``found``
    (see :func:`file_symbols`), their byte offsets moved by ``shift``."""
    found_definitions, reference_keys, reference_kinds = found
    roles, kind_numbers, quick = compiled.roles, compiled.kind_numbers, compiled.quick
    add_key, add_kind = reference_keys.append, reference_kinds.append
    for pattern, captures in QueryCursor(compiled.query).matches(root):
        number = quick[pattern]
        if number >= 0:  # a reference pattern with one name: nothing else to look at
            span = captures["name"][0].byte_range
            add_key(span if not shift else (span[0] + shift, span[1] + shift))
            add_kind(number)
            continue
        role = roles[pattern]
        if role is None:
            role = match_role(captures, kind_numbers)
            if role is None:
                continue
        elif role is NO_ROLE:
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        definition, kind, capture, number = role
        name_start, name_end = name_node.byte_range
        key = (name_start + shift, name_end + shift)
        if definition:
            nodes = captures.get(capture)
            if not nodes:
                continue
            node = nodes[0]
            start, end = node.byte_range
            kept = found_definitions.get(key)
            if kept is None or end - start > kept[1] - kept[0]:
                found_definitions[key] = (start + shift, end + shift, kind, name_node, node)
        else:
            add_key(key)
            add_kind(number)


def _fallback_definitions(
    language: str, pattern: str, source: bytes, found: PackedDefinitions, columns: Columns
) -> list[Definition]:
    """The functions the language's line pattern finds where the queries found none (a file
    the grammar could not read); each spans its name."""
    compiled = _fallbacks.get(language)
    if compiled is None:
        compiled = _fallbacks.setdefault(language, re.compile(pattern.encode(), re.MULTILINE))
    known = set(zip(found.names, found.numbers[::4], strict=True))
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
    if node.type in CSHARP_NAMED_MEMBERS:  # `operator +`, `this[]`, `~Order`, as chunks say
        return csharp_member_name(node)
    return node.text.decode("utf-8", "replace") if node.text else ""


def _definitions(
    found: dict[tuple[int, int], tuple[int, int, str, Node, Node]],
    source: bytes,
    columns: Columns,
    named_by_text: bool,
    merge_clauses: bool = False,
) -> PackedDefinitions:
    """Definitions in source order with their containers (see :class:`PackedDefinitions`). A name
    is its node's source text (``named_by_text``; else :func:`_text` says). With
    ``merge_clauses``, a definition that follows one of the same name, kind and container with
    no other between (a Haskell function's next equation, an Elixir function's next clause)
    extends it."""
    ordered = sorted(found.items(), key=lambda item: (item[1][0], -item[1][1], item[0][0]))
    packed = PackedDefinitions()
    names, kinds, containers, numbers, spans = (
        packed.names,
        packed.kinds,
        packed.containers,
        packed.numbers,
        packed.spans,
    )
    intern = sys.intern
    wide = not columns.ascii
    stack: list[tuple[int, str, str]] = []  # (end byte, qualified name, kind) of the open ones
    for (name_start, name_end), (start, end, kind, name_node, node) in ordered:
        if named_by_text:
            text = source[name_start:name_end]
            name = text.decode("utf-8", "replace") if text else ""
        else:
            name = _text(name_node)
        if not name:
            continue
        while stack and stack[-1][0] <= start:
            stack.pop()
        container = stack[-1][1] if stack else ""
        if kind == "function" and stack and stack[-1][2] in CLASS_KINDS:
            kind = "method"
        end_row, end_column = node.end_point
        if wide:
            end_column = columns(end_row, end_column)
        qualified = f"{container}.{name}" if container else name
        if (
            merge_clauses
            and names
            and names[-1] == name
            and kinds[-1] == kind
            and containers[-1] == container
            and spans[-1][1] <= start
        ):
            numbers[-2:] = (end_row, end_column)
            spans[-1] = (spans[-1][0], end, spans[-1][2])
            stack.append((end, qualified, kind))
            continue
        row, column = name_node.start_point
        if wide:
            column = columns(row, column)
        names.append(intern(name))
        kinds.append(intern(kind))
        containers.append(intern(container))
        numbers += (row, column, end_row, end_column)
        spans.append((start, end, len(names) - 1))
        stack.append((end, qualified, kind))
    return packed

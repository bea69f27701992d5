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
from itertools import chain
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from tree_sitter import Language, Node, Query, QueryCursor, Tree

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


# Per pattern of a compiled query: (definition or not, kind, the capture, the kind's number in
# the query) when the pattern has exactly one ``@definition.KIND``/``@reference.KIND`` capture
# and every match holds it once; _NO_ROLE when it has none (its matches are no symbols); None
# when each match must be looked at.
_Role = tuple[bool, str, str, int]
_NO_ROLE = (False, "", "", -1)
_CAPTURE = re.compile(rb"@([\w.-]+)")
# Node types a name can have that :func:`_text` names otherwise than by their text.
_NAMED_OTHERWISE = ("operator_cast", "companion_object")


class _Compiled:
    """A language's tag query and what each of its patterns finds (see :func:`_roles`)."""

    __slots__ = ("kind_numbers", "kinds", "named_by_text", "query", "quick", "roles")

    def __init__(self, query: Query, text: str, language: Language) -> None:
        self.query = query
        # whether every name is its node's text (no node type that _text names otherwise)
        self.named_by_text = all(
            language.id_for_node_kind(kind, True) is None for kind in _NAMED_OTHERWISE
        )
        roles = (_role(query.capture_name(index)) for index in range(query.capture_count))
        self.kinds = tuple(sorted({role[1] for role in roles if role is not None}))
        self.kind_numbers = {kind: number for number, kind in enumerate(self.kinds)}
        self.roles, self.quick = _roles(query, text.encode("utf-8"), self.kind_numbers)


def _roles(
    query: Query, text: bytes, kind_numbers: dict[str, int]
) -> tuple[tuple[_Role | None, ...], tuple[int, ...]]:
    """Each pattern's role, from its text and its captures' quantifiers, so that a match is
    read without looking at each of its captures; and per pattern, the kind number of a
    reference pattern whose every match holds exactly one name (-1 for the others), whose
    matches are read by their name alone. A reference capture whose every pattern has it as its
    one role, exactly once, and that no predicate reads is disabled: its node is never built
    (the pattern says its kind)."""
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
            roles.append((definition, kind, capture, kind_numbers[kind]))
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
        reference = (False, role[1], capture, kind_numbers[role[1]])
        if all(roles[pattern] == reference for pattern in users):
            query.disable_capture(capture)
    quick = tuple(
        role[3] if role is not None and not role[0] and held.get("name") == "" else -1
        for role, held in zip(roles, quantifiers, strict=True)
    )
    return tuple(roles), quick


def _query(language: str) -> _Compiled | None:
    with _queries_lock:
        if language not in _queries:
            sources = query_sources(language) if has_tags(language) else []
            text = "\n".join(sources)
            grammar = grammar_language(language)
            _queries[language] = _Compiled(Query(grammar, text), text, grammar) if text else None
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
    roles, kind_numbers, quick = compiled.roles, compiled.kind_numbers, compiled.quick
    # by name node (start byte, end byte): (node start byte, node end byte, kind, name, node)
    found_definitions: dict[tuple[int, int], tuple[int, int, str, Node, Node]] = {}
    # every reference match's name node (start byte, end byte) and kind number, in match order
    reference_keys: list[tuple[int, int]] = []
    reference_kinds: list[int] = []
    add_key, add_kind = reference_keys.append, reference_kinds.append
    for pattern, captures in QueryCursor(compiled.query).matches(tree.root_node):
        number = quick[pattern]
        if number >= 0:  # a reference pattern with one name: nothing else to look at
            add_key(captures["name"][0].byte_range)
            add_kind(number)
            continue
        role = roles[pattern]
        if role is None:
            role = _match_role(captures, kind_numbers)
            if role is None:
                continue
        elif role is _NO_ROLE:
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        definition, kind, capture, number = role
        if definition:
            nodes = captures.get(capture)
            if not nodes:
                continue
            node = nodes[0]
            start, end = node.byte_range
            key = name_node.byte_range
            kept = found_definitions.get(key)
            if kept is None or end - start > kept[1] - kept[0]:
                found_definitions[key] = (start, end, kind, name_node, node)
        else:
            add_key(name_node.byte_range)
            add_kind(number)
    fallback = QUERIES[language].fallback
    if not found_definitions and not reference_keys and not fallback:
        return NO_SYMBOLS
    columns = _Columns(source)
    definitions = _definitions(
        found_definitions, source, columns, compiled.named_by_text, QUERIES[language].merge_clauses
    )
    references = _references(
        _References(reference_keys, reference_kinds, compiled.kinds, list(found_definitions)),
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


def _fallback_definitions(
    language: str, pattern: str, source: bytes, found: _Definitions, columns: _Columns
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


def _match_role(captures: dict[str, list[Node]], kind_numbers: dict[str, int]) -> _Role | None:
    """The role of a match whose pattern does not say it: its first role capture's."""
    for capture in captures:
        role = _role(capture)
        if role is not None:
            return role[0], role[1], capture, kind_numbers[role[1]]
    return None


class _Definitions:
    """A file's definitions in source order, packed as :class:`FileSymbols` holds them (names,
    kinds and containers interned; four numbers each), and each one's (start byte, end byte,
    index) for the references' enclosing definitions."""

    __slots__ = ("containers", "kinds", "names", "numbers", "spans")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.containers: list[str] = []
        self.numbers: list[int] = []
        self.spans: list[tuple[int, int, int]] = []

    def extend(self, definitions: Iterable[Definition]) -> None:
        intern = sys.intern
        for definition in definitions:
            self.names.append(intern(definition.name))
            self.kinds.append(intern(definition.kind))
            self.containers.append(intern(definition.container))
            self.numbers += definition[3:]


def _definitions(
    found: dict[tuple[int, int], tuple[int, int, str, Node, Node]],
    source: bytes,
    columns: _Columns,
    named_by_text: bool,
    merge_clauses: bool = False,
) -> _Definitions:
    """Definitions in source order with their containers (see :class:`_Definitions`). A name
    is its node's source text (``named_by_text``; else :func:`_text` says). With
    ``merge_clauses``, a definition that follows one of the same name, kind and container with
    no other between (a Haskell function's next equation, an Elixir function's next clause)
    extends it."""
    ordered = sorted(found.items(), key=lambda item: (item[1][0], -item[1][1], item[0][0]))
    packed = _Definitions()
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


class _References(NamedTuple):
    """A file's reference matches, as :func:`file_symbols` collects them."""

    keys: list[tuple[int, int]]  # each match's name (start byte, end byte), in match order
    kinds: list[int]  # each match's kind, numbered as in ``kind_names``
    kind_names: tuple[str, ...]
    definition_keys: list[tuple[int, int]]  # the definitions' names: no references


def _references(
    found: _References,
    spans: list[tuple[int, int, int]],
    columns: _Columns,
    source: bytes,
) -> tuple[tuple[str, ...], tuple[str, ...], array[int]]:
    """The references ``found`` packed as :class:`FileSymbols` holds them: names, distinct
    kinds, and five numbers each, in source order. Matches of the same name node count once,
    with the first match's kind; a definition's own name is no reference. The numbers are
    computed over arrays: lines and columns from where the source's lines start (byte columns,
    as the tree counts them), the enclosing definition from the definitions' spans; a name is
    its source text, decoded and interned once per file."""
    if not found.keys:
        return (), (), array("i")
    pairs = np.fromiter(chain.from_iterable(found.keys), np.int64, 2 * len(found.keys))
    pairs = pairs.reshape(-1, 2)
    keys = (pairs[:, 0] << 32) | pairs[:, 1]
    order = np.argsort(keys, kind="stable")  # by name node; among equal ones, match order
    keys = keys[order]
    first = np.empty(len(keys), np.bool_)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    kept = first & (pairs[order, 1] > pairs[order, 0])  # once each, never an empty name
    if found.definition_keys:
        defined = np.fromiter(
            chain.from_iterable(found.definition_keys), np.int64, 2 * len(found.definition_keys)
        ).reshape(-1, 2)
        defined = np.sort((defined[:, 0] << 32) | defined[:, 1])
        at = np.minimum(np.searchsorted(defined, keys), len(defined) - 1)
        kept &= defined[at] != keys
    chosen = order[kept]
    if not len(chosen):
        return (), (), array("i")
    starts, ends = pairs[chosen, 0], pairs[chosen, 1]
    count = len(chosen)
    numbers = np.empty((count, 5), np.intc)
    # kinds, numbered in the order they first occur
    kind_numbers = np.fromiter(found.kinds, np.intc, len(found.kinds))[chosen]
    present = np.flatnonzero(np.bincount(kind_numbers, minlength=len(found.kind_names)))
    if len(present) == 1:
        distinct = present
        numbers[:, 0] = 0
    else:
        first_at = [int(np.argmax(kind_numbers == number)) for number in present.tolist()]
        distinct = present[np.argsort(first_at)]
        renumber = np.zeros(len(found.kind_names), np.intc)
        renumber[distinct] = np.arange(len(distinct), dtype=np.intc)
        numbers[:, 0] = renumber[kind_numbers]
    # lines and byte columns
    newlines = np.flatnonzero(np.frombuffer(source, np.uint8) == 10)
    line_starts = np.concatenate((np.zeros(1, np.int64), newlines + 1))
    rows = np.searchsorted(newlines, starts)
    numbers[:, 1] = rows
    numbers[:, 2] = starts - line_starts[rows]
    numbers[:, 3] = ends - line_starts[np.searchsorted(newlines, ends)]
    numbers[:, 4] = _enclosing(starts, spans)
    if not columns.ascii:  # UTF-16 columns on the lines holding other characters
        wide = np.flatnonzero(np.frombuffer(source, np.uint8) >= 128)
        wide_rows = np.unique(np.searchsorted(newlines, wide))
        for index in np.flatnonzero(np.isin(rows, wide_rows)).tolist():
            row, column, end_column = numbers[index, 1:4].tolist()
            numbers[index, 2] = columns(row, column)
            numbers[index, 3] = columns(row, end_column)
    intern = sys.intern
    decoded: dict[bytes, str] = {}
    names: list[str] = []
    add_name = names.append
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        text = source[start:end]
        name = decoded.get(text)
        if name is None:
            name = decoded[text] = intern(text.decode("utf-8", "replace"))
        add_name(name)
    packed = array("i")
    packed.frombytes(numbers.tobytes())
    kinds = tuple(found.kind_names[number] for number in distinct.tolist())
    return tuple(names), kinds, packed


def _enclosing(
    starts: npt.NDArray[np.int64], spans: list[tuple[int, int, int]]
) -> npt.NDArray[np.intc]:
    """For each reference starting at one of ``starts``, the index of the innermost definition
    holding it, -1 for none: the last definition (in source order) starting at or before it,
    or else the definition that was open around that one, and so on, until one ends after the
    reference starts."""
    found = np.full(len(starts), -1, np.intc)
    if not spans:
        return found
    span_starts = np.array([span[0] for span in spans], np.int64)
    span_ends = np.array([span[1] for span in spans], np.int64)
    indexes = np.array([span[2] for span in spans], np.intc)
    outer = np.empty(len(spans), np.int64)  # the definition open around each, -1: none
    open_spans: list[int] = []
    for position, (start, _, _) in enumerate(spans):
        while open_spans and spans[open_spans[-1]][1] <= start:
            open_spans.pop()
        outer[position] = open_spans[-1] if open_spans else -1
        open_spans.append(position)
    at = np.searchsorted(span_starts, starts, side="right") - 1
    while True:
        ended = (at >= 0) & (span_ends[np.maximum(at, 0)] <= starts)
        if not ended.any():
            break
        at[ended] = outer[at[ended]]
    held = at >= 0
    found[held] = indexes[at[held]]
    return found

"""Structure queries over the symbol index: definitions and references by name, the name under
a position, a file's outline (issue 28; the index is :mod:`ragls.core.symbols`).

Everything here is **name-based**: a reference to ``save`` is every use of an identifier spelled
``save``, whatever object it belongs to; nothing resolves types, imports or scopes. That is what
makes one index answer for every language ragls chunks, and it is said wherever these answers
reach a client (protocol.md, the MCP tools' descriptions).

Cost follows what matches: an exact name reads the files the index's name -> files maps give;
a glob or fuzzy pattern scans the distinct names once (as ``workspace/symbol`` does), then reads
only the files of the names that matched.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from ragls.core.symbols import (
    Definition,
    FileSymbols,
    Reference,
    SymbolIndex,
    is_test_path,
    match_tier,
)

MatchMode = Literal["exact", "glob", "fuzzy"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "glob", "fuzzy")


class FoundDefinition(NamedTuple):
    path: str
    definition: Definition
    tier: int  # the match tier of :func:`ragls.core.symbols.match_tier` (0: exact)


class FoundReference(NamedTuple):
    path: str
    reference: Reference
    enclosing: Definition | None  # the definition the use is inside, if any


class FileReferences(NamedTuple):
    path: str
    references: list[FoundReference]


@dataclass
class ReferenceSet:
    """References to one name, grouped by file (files outside tests first, then by path),
    cut to a limit: ``total`` counts them all, ``truncated`` says whether some were left out."""

    name: str
    files: list[FileReferences] = field(default_factory=list)
    total: int = 0
    truncated: bool = False


@dataclass
class OutlineNode:
    """A definition and the definitions nested in it (their container is its qualified name)."""

    definition: Definition
    children: list[OutlineNode] = field(default_factory=list)


def qualified(definition: Definition) -> str:
    return f"{definition.container}.{definition.name}" if definition.container else definition.name


def utf16_length(text: str) -> int:
    """``text``'s length in UTF-16 code units (how LSP counts columns)."""
    return len(text) + sum(1 for character in text if ord(character) > 0xFFFF)


def _file_order(path: str) -> tuple[bool, str]:
    return is_test_path(path), path


def definitions(
    index: SymbolIndex, name: str, mode: MatchMode, limit: int
) -> tuple[list[FoundDefinition], int]:
    """Definitions whose name matches ``name``, best first, at most ``limit``, and how many
    matched. ``exact``: the name as written (case-sensitive). ``glob``: ``*``, ``?`` and
    ``[...]`` over the whole name, case-insensitive. ``fuzzy``: ranked by match tier (exact >
    prefix > sub-token > substring > characters in order), as ``workspace/symbol`` is."""
    if mode == "fuzzy":
        matches = index.search(name, limit, references=False)
        found = [
            FoundDefinition(match.path, match.definition, match.tier)
            for match in matches
            if match.definition is not None
        ]
        return found, len(found)
    found = []
    with index.locked() as view:
        if mode == "exact":
            names: Iterable[str] = [name] if name in view.definition_files else []
        else:
            pattern = re.compile(fnmatch.translate(name.lower()))
            names = [each for each in view.definition_files if pattern.match(each.lower())]
        needle = name.lower()
        for each in names:
            tier = 0 if mode == "exact" else (match_tier(needle, each) or 0)
            for path in view.definition_files[each]:
                found.extend(
                    FoundDefinition(path, definition, tier)
                    for definition in view.files[path].definitions
                    if definition.name == each
                )
    found.sort(
        key=lambda item: (
            is_test_path(item.path),
            len(item.definition.name),
            item.definition.name,
            item.path,
            item.definition.line,
        )
    )
    return found[:limit], len(found)


def references(index: SymbolIndex, name: str, limit: int) -> ReferenceSet:
    """Every use of the identifier ``name`` (case-sensitive, name-based: see the module doc),
    grouped by file, at most ``limit`` in all."""
    answer = ReferenceSet(name)
    with index.locked() as view:
        holders = view.reference_files.get(name, {})
        answer.total = sum(holders.values())
        kept = 0
        for path in sorted(holders, key=_file_order):
            if kept >= limit:
                answer.truncated = True
                break
            symbols = view.files[path]
            uses = [
                FoundReference(path, reference, _enclosing(symbols, reference))
                for reference in symbols.references()
                if reference.name == name
            ]
            if kept + len(uses) > limit:
                uses = uses[: limit - kept]
                answer.truncated = True
            kept += len(uses)
            answer.files.append(FileReferences(path, uses))
    return answer


def _enclosing(symbols: FileSymbols, reference: Reference) -> Definition | None:
    if 0 <= reference.enclosing < symbols.definition_count:
        return symbols.definition_at(reference.enclosing)
    return None


def name_at(symbols: FileSymbols, line: int, character: int) -> str | None:
    """The name of the definition or reference whose name spans ``line``:``character``
    (0-based, UTF-16 columns; the position just after the name counts, as editors place the
    cursor there), or None."""
    for definition in symbols.definitions:
        if definition.line == line:
            end = definition.column + utf16_length(definition.name)
            if definition.column <= character <= end:
                return definition.name
    for reference in symbols.references():
        if reference.line == line and reference.column <= character <= reference.end_column:
            return reference.name
    return None


def outline(symbols: FileSymbols) -> list[OutlineNode]:
    """A file's definitions nested by container, in source order."""
    roots: list[OutlineNode] = []
    open_nodes: dict[str, OutlineNode] = {}  # qualified name -> the latest node of that name
    for definition in sorted(symbols.definitions, key=lambda item: (item.line, item.column)):
        node = OutlineNode(definition)
        parent = open_nodes.get(definition.container) if definition.container else None
        (parent.children if parent is not None else roots).append(node)
        open_nodes[qualified(definition)] = node
    return roots


def files_below(index: SymbolIndex, folder: str) -> list[str]:
    """The files holding symbols below ``folder`` (relative to the root; "" for all), sorted."""
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    with index.locked() as view:
        return sorted(path for path in view.files if path.startswith(prefix))

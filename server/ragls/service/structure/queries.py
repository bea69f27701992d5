"""Structure beside search: definitions, references, outlines and the repository map of one
session's index, with source lines quoted, limits and errors (issue 28).

The queries themselves are :mod:`ragls.core.symbol_lookup` and :mod:`ragls.core.repo_map`;
this module turns their answers into values the daemon (``rag/definitions``,
``rag/references``) and the MCP tools (``find_symbol``, ``find_references``, ``outline``,
``repo_map``) send:

* Paths are relative to the indexed root. A path given absolute must lie below the root; one
  with ``..`` or outside it is an :class:`InvalidArgumentError` naming it, as is a file the index
  does not hold, a position outside the file or on no name.
* Source lines (a definition's signature: its first line, trimmed; its doc: the comment lines
  right above it or the docstring right below) come from the chunks the index holds, as indexing
  read them (secrets masked). Nothing is read from disk, so nothing indexing would refuse is
  ever shown; a line no chunk holds is left out (``signature`` None).
* Everything is name-based: no type resolution (see :mod:`ragls.core.symbol_lookup`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from ragls.core import repo_map as ranking
from ragls.core import symbol_lookup as lookup
from ragls.core.documents import Document, SearchResult
from ragls.core.symbol_lookup import MATCH_MODES, MatchMode, OutlineNode
from ragls.core.symbols import Definition, FileSymbols, Reference, SymbolIndex
from ragls.errors import InvalidArgumentError
from ragls.service.structure.source_lines import SourceLines
from ragls.service.structure.values import (
    DefinitionInfo,
    FileOutline,
    FileReferencesInfo,
    MapFile,
    OutlineEntry,
    OutlineInfo,
    ReferenceInfo,
    ReferencesInfo,
    RepoMap,
)

MAX_DEFINITIONS = 200
MAX_REFERENCES = 5_000
MAX_OUTLINE_FILES = 500
REPO_MAP_SEARCH_HITS = 30
MIN_MAP_CHARS = 200
MAX_MAP_CHARS = 200_000
MAX_MAP_MISSES = 100
MIN_MAP_LINE = 12


class SymbolStructure:
    """The structure queries of one session's committed index (see the module doc)."""

    def __init__(
        self,
        root: Path | None,
        symbols: SymbolIndex,
        documents_of: Callable[[str], Sequence[Document]],
        search: Callable[[str, int], list[SearchResult]],
    ) -> None:
        self.root = root
        self._symbols = symbols
        self._documents_of = documents_of
        self._search = search
        self._lines: dict[str, SourceLines] = {}

    # -- paths ---------------------------------------------------------------------------------

    def _indexed_root(self) -> Path:
        if self.root is None:
            raise InvalidArgumentError("nothing is indexed yet: this session has no folder")
        return self.root

    def relative(self, path: str) -> str:
        """``path`` (relative to the root, or absolute below it) as the index names it."""
        root = self._indexed_root()
        if not path:
            raise InvalidArgumentError("path is empty")
        if "\x00" in path:
            raise InvalidArgumentError("path holds a NUL character")
        candidate = Path(path)
        if candidate.is_absolute():
            normal = Path(os.path.normpath(candidate))
            for base in (root, root.resolve()):
                if normal.is_relative_to(base):
                    below = normal.relative_to(base).as_posix()
                    return "" if below == "." else below
            raise InvalidArgumentError(f"path {path!r} is outside the indexed root {root}")
        parts = PurePosixPath(path.replace("\\", "/")).parts
        if ".." in parts:
            raise InvalidArgumentError(f"path {path!r}: '..' may not leave the indexed root")
        return "/".join(part for part in parts if part != ".")

    def _lines_of(self, path: str) -> SourceLines:
        found = self._lines.get(path)
        if found is None:
            found = self._lines[path] = SourceLines(self._documents_of(path))
        return found

    def _symbols_of(self, path: str) -> FileSymbols:
        symbols = self._symbols.get(path)
        if symbols is None:
            raise InvalidArgumentError(f"{path}: the index holds no symbols for this file")
        return symbols

    # -- answers -------------------------------------------------------------------------------

    def definition_info(self, path: str, definition: Definition, *, doc: bool) -> DefinitionInfo:
        lines = self._lines_of(path)
        return DefinitionInfo(
            path,
            definition.name,
            definition.kind,
            definition.container,
            definition.line,
            definition.column,
            definition.end_line,
            definition.end_column,
            lines.signature(definition),
            lines.doc(definition) if doc else (),
        )

    def definitions(
        self, name: str, match: str = "exact", limit: int = 50, *, doc: bool = True
    ) -> tuple[list[DefinitionInfo], int]:
        """Definitions by name (see :func:`ragls.core.symbol_lookup.definitions`), with their
        signature and doc lines, and how many matched."""
        self._indexed_root()
        _check_limit(limit, MAX_DEFINITIONS)
        if match not in MATCH_MODES:
            raise InvalidArgumentError(f"match must be one of {', '.join(MATCH_MODES)}")
        if not name.strip():
            raise InvalidArgumentError("name is empty")
        mode: MatchMode = match  # checked just above
        found, total = lookup.definitions(self._symbols, name.strip(), mode, limit)
        return [self.definition_info(f.path, f.definition, doc=doc) for f in found], total

    def references(self, name: str, limit: int = 200) -> ReferencesInfo:
        """Every use of ``name`` (name-based), grouped by file, with where each is."""
        self._indexed_root()
        _check_limit(limit, MAX_REFERENCES)
        if not name.strip():
            raise InvalidArgumentError("name is empty")
        found = lookup.references(self._symbols, name.strip(), limit)
        files = [
            FileReferencesInfo(
                group.path,
                [
                    self._reference_info(group.path, f.reference, f.enclosing)
                    for f in group.references
                ],
            )
            for group in found.files
        ]
        definitions, _ = lookup.definitions(self._symbols, name.strip(), "exact", MAX_DEFINITIONS)
        return ReferencesInfo(
            found.name,
            files,
            found.total,
            found.truncated,
            [self.definition_info(f.path, f.definition, doc=False) for f in definitions],
        )

    def _reference_info(
        self, path: str, reference: Reference, enclosing: Definition | None
    ) -> ReferenceInfo:
        text = self._lines_of(path).get(reference.line)
        return ReferenceInfo(
            path,
            reference.name,
            reference.kind,
            reference.line,
            reference.column,
            reference.end_column,
            None if enclosing is None else lookup.qualified(enclosing),
            None if enclosing is None else enclosing.kind,
            None if text is None else text.strip(),
        )

    def name_at(self, path: str, line: int, character: int) -> str:
        """The identifier at a position of an indexed file (a definition's or a reference's
        name), or InvalidArgumentError saying why there is none."""
        relative = self.relative(path)
        if line < 0 or character < 0:
            raise InvalidArgumentError("position: line and character must be 0 or more")
        symbols = self._symbols_of(relative)
        name = lookup.name_at(symbols, line, character)
        if name is None:
            raise InvalidArgumentError(
                f"{relative}:{line + 1}:{character + 1}: no definition or reference there"
            )
        return name

    def references_at(
        self, path: str, line: int, character: int, limit: int = 200
    ) -> ReferencesInfo:
        return self.references(self.name_at(path, line, character), limit)

    def outline(self, path: str = "", limit: int = 100) -> OutlineInfo:
        """The definitions of a file, or of every file below a folder ("" or "." for the root),
        nested by container; at most ``limit`` files."""
        self._indexed_root()
        _check_limit(limit, MAX_OUTLINE_FILES)
        relative = self.relative(path) if path not in ("", ".") else ""
        if relative and self._symbols.get(relative) is not None:
            paths = [relative]
        else:
            paths = lookup.files_below(self._symbols, relative)
            if not paths:
                raise InvalidArgumentError(
                    f"{path or '.'}: no indexed file with definitions is there"
                )
        files = []
        for each in paths[:limit]:
            symbols = self._symbols.get(each)
            if symbols is not None:
                files.append(FileOutline(each, self._entries(each, lookup.outline(symbols))))
        return OutlineInfo(files, len(paths), len(paths) > limit)

    def _entries(self, path: str, nodes: list[OutlineNode]) -> list[OutlineEntry]:
        return [
            OutlineEntry(
                self.definition_info(path, node.definition, doc=False),
                self._entries(path, node.children),
            )
            for node in nodes
        ]

    # -- the repository map --------------------------------------------------------------------

    def repo_map(
        self, max_chars: int = 4_000, query: str | None = None, focus: Sequence[str] = ()
    ) -> RepoMap:
        """The most central definitions, per file, within ``max_chars`` (see
        :mod:`ragls.core.repo_map`); ``query`` and ``focus`` (paths) personalise the ranking."""
        self._indexed_root()
        if not MIN_MAP_CHARS <= max_chars <= MAX_MAP_CHARS:
            raise InvalidArgumentError(
                f"max_chars must be from {MIN_MAP_CHARS} to {MAX_MAP_CHARS}, got {max_chars}"
            )
        personalisation: dict[str, float] = {}
        for path in focus:
            relative = self.relative(path)
            personalisation[relative] = personalisation.get(relative, 0.0) + 1.0
        boost: dict[str, float] = {}
        if query and query.strip():
            for place, result in enumerate(self._search(query, REPO_MAP_SEARCH_HITS)):
                file = result.metadata.get("file")
                if file:
                    boost[file] = boost.get(file, 0.0) + 1.0 / (place + 1)
        for path, weight in boost.items():
            personalisation[path] = personalisation.get(path, 0.0) + weight
        graph = ranking.graph_of(self._symbols)
        ranked = ranking.rank(graph, personalisation or None, boost or None)
        return self._render(ranked, max_chars, len(graph.paths))

    def _candidates(self, ranked: ranking.RankedFiles) -> Iterator[tuple[str, Definition]]:
        """Definitions in the order the map shows them, lazily (the map stops when its budget is
        spent): those other files use, by the rank flowing to them, one per qualified name (an
        overloaded name once); then the top-level definitions of the other files, by file
        rank."""
        by_name: dict[str, dict[str, list[Definition]]] = {}  # path -> name -> definitions

        def named(path: str) -> dict[str, list[Definition]]:
            found = by_name.get(path)
            if found is None:
                symbols = self._symbols.get(path)
                seen: set[str] = set()
                found = by_name[path] = {}
                for definition in () if symbols is None else symbols.definitions:
                    if lookup.qualified(definition) not in seen:
                        seen.add(lookup.qualified(definition))
                        found.setdefault(definition.name, []).append(definition)
            return found

        for (path, name), _score in sorted(
            ranked.definition_score.items(), key=lambda item: -item[1]
        ):
            for definition in named(path).get(name, ()):
                yield path, definition
        for path in sorted(ranked.file_rank, key=lambda each: -ranked.file_rank[each]):
            for definitions in named(path).values():
                for definition in definitions:
                    if not definition.container:
                        yield path, definition

    def _render(self, ranked: ranking.RankedFiles, max_chars: int, total_files: int) -> RepoMap:
        shown: dict[str, dict[tuple[int, int], DefinitionInfo]] = {}
        used = 0
        misses = 0  # candidates that did not fit: after MAX_MAP_MISSES the map is full enough
        for path, definition in self._candidates(ranked):
            if misses > MAX_MAP_MISSES or max_chars - used < MIN_MAP_LINE:
                break
            kept = shown.get(path)
            key = (definition.line, definition.column)
            if kept is not None and key in kept:
                continue
            info = self.definition_info(path, definition, doc=False)
            if info.signature is None:
                misses += 1
                continue
            cost = _line_cost(info) + (0 if kept is not None else len(path) + 2)
            if used + cost > max_chars:
                misses += 1
                continue
            used += cost
            shown.setdefault(path, {})[key] = info
        files = [
            MapFile(path, ranked.file_rank.get(path, 0.0), sorted(infos.values(), key=_position))
            for path, infos in shown.items()
        ]
        text = "".join(
            f"{each.path}:\n" + "".join(_map_line(info) for info in each.definitions)
            for each in files
        )
        return RepoMap(text, files, total_files, max_chars)


def _position(info: DefinitionInfo) -> tuple[int, int]:
    return info.line, info.column


def _map_line(info: DefinitionInfo) -> str:
    depth = info.container.count(".") + 1 if info.container else 0
    return f"{info.line + 1:>5}│{'  ' * depth}{info.signature}\n"


def _line_cost(info: DefinitionInfo) -> int:
    return len(_map_line(info))


def _check_limit(limit: int, high: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= high:
        raise InvalidArgumentError(f"limit must be an integer from 1 to {high}, got {limit!r}")

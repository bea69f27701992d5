"""The structure tools of ``ragls mcp``: ``find_symbol``, ``find_references``, ``outline`` and
``repo_map`` over a root's symbol index (issue 28; the queries are
:class:`ragls.service.structure.SymbolStructure`).

Decisions written down here:

* Lines are 1-based and inclusive, as ``search_code`` and ``read_span`` count them, so a hit's
  ``start_line`` can be passed to ``read_span`` as it is; columns are 1-based too.
* Everything is name-based (no type resolution): a reference to ``save`` is every use of an
  identifier spelled ``save``. The tools' descriptions say so, so an assistant does not read a
  list of same-named uses as one function's callers without checking.
* Signatures and doc lines are quoted from the indexed chunks (secrets masked), never read from
  disk: nothing indexing refuses is shown.
* Like the search tools, these answer from the root's latest generation, a partial one during a
  first index (with ``partial``, ``progress`` and a note).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragls.errors import InvalidArgumentError
from ragls.mcp.names import unescaped
from ragls.mcp.tools import RaglsTools, ToolFailure, partial_fields
from ragls.service.structure import (
    DefinitionInfo,
    OutlineEntry,
    ReferenceInfo,
    SymbolStructure,
)

MAX_FOCUS_FILES = 100


def _definition(info: DefinitionInfo, *, doc: bool = True) -> dict[str, Any]:
    found: dict[str, Any] = {
        "path": info.path,
        "name": info.name,
        "kind": info.kind,
        "container": info.container,
        "start_line": info.line + 1,
        "end_line": info.end_line + 1,
        "signature": info.signature,
    }
    if doc:
        found["doc"] = list(info.doc)
    return found


def _reference(info: ReferenceInfo) -> dict[str, Any]:
    return {
        "line": info.line + 1,
        "column": info.column + 1,
        "kind": info.kind,
        "enclosing": info.enclosing,
        "enclosing_kind": info.enclosing_kind,
        "text": info.text,
    }


def _entry(entry: OutlineEntry) -> dict[str, Any]:
    found = _definition(entry.definition, doc=False)
    del found["path"], found["container"]
    if entry.children:
        found["children"] = [_entry(child) for child in entry.children]
    return found


class StructureTools:
    """The structure tools over the roots of one :class:`RaglsTools`."""

    def __init__(self, tools: RaglsTools) -> None:
        self._tools = tools

    def _ask(
        self, root: str | None, question: Callable[[SymbolStructure], dict[str, Any]]
    ) -> dict[str, Any]:
        """Ask ``question`` of the root's index; the answer comes with the root, generation,
        stale and partial fields every search answer has."""
        chosen = self._tools.root_named(root)
        session = self._tools.answering(chosen)
        partial = session.service.partial
        try:
            answer = question(session.service.structure())
        except InvalidArgumentError as error:
            raise ToolFailure(str(error)) from None
        return (
            {"root": str(chosen.path)}
            | answer
            | {"generation": session.service.generation, "stale": session.stale}
            | partial_fields(chosen.path, partial)
        )

    def find_symbol(
        self, name: str, match: str = "exact", limit: int = 20, root: str | None = None
    ) -> dict[str, Any]:
        def question(structure: SymbolStructure) -> dict[str, Any]:
            found, total = structure.definitions(name, match, limit)
            answer = {"definitions": [_definition(info) for info in found], "total": total}
            if not found and match == "exact":
                answer["note"] = (
                    f"nothing is defined with the exact, case-sensitive name {name!r}; try "
                    "match='fuzzy' (ranked near matches) or match='glob' (e.g. '*name*')"
                )
            return answer

        return self._ask(root, question)

    def find_references(
        self, name: str, limit: int = 100, root: str | None = None
    ) -> dict[str, Any]:
        def question(structure: SymbolStructure) -> dict[str, Any]:
            found = structure.references(name, limit)
            note = {}
            if not found.total:
                note["note"] = (
                    f"no use of an identifier spelled exactly {name!r} (names are matched as "
                    "written, case-sensitive); find_symbol with match='fuzzy' finds the spelling"
                )
            return note | {
                "name": found.name,
                "total": found.total,
                "truncated": found.truncated,
                "files": [
                    {"path": group.path, "references": [_reference(r) for r in group.references]}
                    for group in found.files
                ],
                "definitions": [_definition(info, doc=False) for info in found.definitions],
            }

        return self._ask(root, question)

    def outline(self, path: str = ".", limit: int = 50, root: str | None = None) -> dict[str, Any]:
        def question(structure: SymbolStructure) -> dict[str, Any]:
            try:
                found = structure.outline(path, limit)
            except InvalidArgumentError:
                if unescaped(path) == path:
                    raise
                found = structure.outline(unescaped(path), limit)  # a name not UTF-8, as shown
            return {
                "files": [
                    {"path": file.path, "definitions": [_entry(entry) for entry in file.entries]}
                    for file in found.files
                ],
                "total_files": found.total_files,
                "truncated": found.truncated,
            }

        return self._ask(root, question)

    def repo_map(
        self,
        max_chars: int = 4_000,
        query: str | None = None,
        focus_files: list[str] | None = None,
        root: str | None = None,
    ) -> dict[str, Any]:
        focus = list(focus_files or [])
        if len(focus) > MAX_FOCUS_FILES:
            raise ToolFailure(f"focus_files: at most {MAX_FOCUS_FILES} paths")
        # A name that is not UTF-8 as the tools show it (caf\xe9.py): both spellings, as a file
        # of the literal name may exist too.
        focus += [unescaped(path) for path in focus if unescaped(path) != path]

        def question(structure: SymbolStructure) -> dict[str, Any]:
            found = structure.repo_map(max_chars, query, focus)
            return {
                "map": found.text,
                "chars": len(found.text),
                "files": [
                    {
                        "path": file.path,
                        "rank": round(file.rank, 6),
                        "definitions": [
                            {
                                "name": info.name,
                                "kind": info.kind,
                                "line": info.line + 1,
                                "signature": info.signature,
                            }
                            for info in file.definitions
                        ],
                    }
                    for file in found.files
                ],
                "shown_files": len(found.files),
                "total_files": found.total_files,
            }

        return self._ask(root, question)

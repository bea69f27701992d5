"""``rag/definitions`` and ``rag/references``: definitions and references by name, across the
daemon's sessions (protocol.md §4, issue 28).

Both are **name-based** (no type resolution): ``rag/references`` for ``save`` lists every use
of an identifier spelled ``save``. The queries are :class:`ragls.service.structure.SymbolStructure`;
here they are routed to sessions and answered as typed results:

* with ``session``, only that session answers (one without an indexed folder is InvalidParams);
* ``rag/references`` with a file (``uri`` or ``path``, absolute or relative to the session's
  folder) and a ``position`` finds the name under the position in that file (the name of a
  definition or a reference the index holds there), in the session whose folder holds the file;
* otherwise every session with an indexed folder answers and the answers are merged.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs
from pygls.exceptions import JsonRpcInvalidParams

from ragls.lsp.context import ServerContext
from ragls.lsp.messages import DefinitionsParams, ReferencesParams
from ragls.lsp.results import register_answers
from ragls.service.session.workspace import WorkspaceSession
from ragls.service.structure import DefinitionInfo, ReferenceInfo, SymbolStructure


@attrs.frozen
class PositionView:
    line: int
    character: int


@attrs.frozen
class RangeView:
    start: PositionView
    end: PositionView

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> RangeView:
        return cls(PositionView(line, column), PositionView(end_line, end_column))


@attrs.frozen
class DefinitionView:
    """A definition: ``range`` from its name to its end, ``selectionRange`` its name."""

    session: str
    uri: str
    path: str
    name: str
    kind: str
    container: str
    range: RangeView
    selection_range: RangeView
    signature: str | None
    doc: list[str]


@attrs.frozen
class DefinitionsAnswer:
    definitions: list[DefinitionView]
    total: int  # how many matched, before the limit


@attrs.frozen
class ReferenceView:
    range: RangeView
    kind: str
    enclosing: str | None
    enclosing_kind: str | None
    text: str | None


@attrs.frozen
class FileReferencesView:
    session: str
    uri: str
    path: str
    references: list[ReferenceView]


@attrs.frozen
class ReferencesAnswer:
    name: str
    files: list[FileReferencesView]
    total: int  # every reference to the name, before the limit
    truncated: bool
    definitions: list[DefinitionView]


register_answers(globals(), __name__)


def _structures(
    ls: ServerContext, session_id: str | None
) -> list[tuple[WorkspaceSession, SymbolStructure]]:
    if session_id is not None:
        session = ls.sessions.resolve(session_id)
        return [(session, session.service.structure())]
    found = [(session, session.service.structure()) for session in ls.sessions.sessions()]
    return [(session, structure) for session, structure in found if structure.root is not None]


def _uri(structure: SymbolStructure, path: str) -> str:
    assert structure.root is not None
    return (structure.root / path).as_uri()


def _definition_view(
    session: WorkspaceSession, structure: SymbolStructure, info: DefinitionInfo
) -> DefinitionView:
    name_end = info.column + len(info.name.encode("utf-16-le")) // 2
    return DefinitionView(
        session.id,
        _uri(structure, info.path),
        info.path,
        info.name,
        info.kind,
        info.container,
        RangeView.of(info.line, info.column, info.end_line, info.end_column),
        RangeView.of(info.line, info.column, info.line, name_end),
        info.signature,
        list(info.doc),
    )


def _reference_view(info: ReferenceInfo) -> ReferenceView:
    return ReferenceView(
        RangeView.of(info.line, info.column, info.line, info.end_column),
        info.kind,
        info.enclosing,
        info.enclosing_kind,
        info.text,
    )


def definitions(ls: ServerContext, params: DefinitionsParams) -> DefinitionsAnswer:
    views: list[DefinitionView] = []
    total = 0
    for session, structure in _structures(ls, params.session):
        found, matched = structure.definitions(params.name, params.match, params.limit)
        total += matched
        views += [_definition_view(session, structure, info) for info in found]
    return DefinitionsAnswer(views[: params.limit], total)


def references(ls: ServerContext, params: ReferencesParams) -> ReferencesAnswer:
    file = params.path if params.uri is None else _path_of_uri(params.uri)
    if file is not None or params.position is not None:
        if file is None or params.position is None:
            raise JsonRpcInvalidParams("position and uri (or path) go together")
        session, structure = _holder(ls, params.session, file)
        name = structure.name_at(file, params.position["line"], params.position["character"])
        chosen = [(session, structure)]
    elif params.name is None or not params.name.strip():
        raise JsonRpcInvalidParams("name is required (or uri/path and position)")
    else:
        name = params.name
        chosen = _structures(ls, params.session)
    answer = ReferencesAnswer(name, [], 0, False, [])
    for session, structure in chosen:
        found = structure.references(name, params.limit)
        answer.files.extend(
            FileReferencesView(
                session.id,
                _uri(structure, group.path),
                group.path,
                [_reference_view(info) for info in group.references],
            )
            for group in found.files
        )
        answer.definitions.extend(
            _definition_view(session, structure, info) for info in found.definitions
        )
        answer = attrs.evolve(
            answer, total=answer.total + found.total, truncated=answer.truncated or found.truncated
        )
    return answer


def _path_of_uri(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise JsonRpcInvalidParams(f"uri must be a file: URI, got {uri!r}")
    return unquote(parsed.path)


def _holder(
    ls: ServerContext, session_id: str | None, file: str
) -> tuple[WorkspaceSession, SymbolStructure]:
    """The session a file belongs to: the one named, else the one whose folder holds it."""
    candidates = _structures(ls, session_id)
    if session_id is not None or not Path(file).is_absolute():
        if not candidates:
            raise JsonRpcInvalidParams("no session has an indexed folder")
        return candidates[0]
    for session, structure in candidates:
        assert structure.root is not None
        if Path(file).is_relative_to(structure.root) or Path(file).is_relative_to(
            structure.root.resolve()
        ):
            return session, structure
    raise JsonRpcInvalidParams(f"{file}: no session's indexed folder holds this file")

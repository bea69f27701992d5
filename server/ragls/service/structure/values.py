"""The values structure answers are made of (:mod:`ragls.service.structure`): paths relative
to the indexed root, lines and columns 0-based (columns in UTF-16 units, as LSP counts them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DefinitionInfo:
    path: str
    name: str
    kind: str
    container: str
    line: int  # 0-based, where the name starts (column in UTF-16 units)
    column: int
    end_line: int  # where the definition ends
    end_column: int
    signature: str | None
    doc: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReferenceInfo:
    path: str
    name: str
    kind: str
    line: int
    column: int
    end_column: int
    enclosing: str | None  # the qualified name of the definition the use is inside
    enclosing_kind: str | None
    text: str | None  # the line, trimmed


@dataclass(frozen=True)
class FileReferencesInfo:
    path: str
    references: list[ReferenceInfo]


@dataclass(frozen=True)
class ReferencesInfo:
    name: str
    files: list[FileReferencesInfo]
    total: int
    truncated: bool
    definitions: list[DefinitionInfo]


@dataclass(frozen=True)
class OutlineEntry:
    definition: DefinitionInfo
    children: list[OutlineEntry] = field(default_factory=list)


@dataclass(frozen=True)
class FileOutline:
    path: str
    entries: list[OutlineEntry]


@dataclass(frozen=True)
class OutlineInfo:
    files: list[FileOutline]
    total_files: int
    truncated: bool


@dataclass(frozen=True)
class MapFile:
    path: str
    rank: float
    definitions: list[DefinitionInfo]


@dataclass(frozen=True)
class RepoMap:
    text: str
    files: list[MapFile]
    total_files: int  # files holding symbols
    max_chars: int

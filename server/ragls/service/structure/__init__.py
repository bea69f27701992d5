"""Structure beside search: definitions, references, outlines and the repository map of one
session's index (issue 28); :mod:`.queries` answers, :mod:`.values` are the answers,
:mod:`.source_lines` quotes source lines from the indexed chunks."""

from __future__ import annotations

from ragls.service.structure.queries import (
    MAX_DEFINITIONS,
    MAX_MAP_CHARS,
    MAX_OUTLINE_FILES,
    MAX_REFERENCES,
    MIN_MAP_CHARS,
    SymbolStructure,
)
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

__all__ = [
    "MAX_DEFINITIONS",
    "MAX_MAP_CHARS",
    "MAX_OUTLINE_FILES",
    "MAX_REFERENCES",
    "MIN_MAP_CHARS",
    "DefinitionInfo",
    "FileOutline",
    "FileReferencesInfo",
    "MapFile",
    "OutlineEntry",
    "OutlineInfo",
    "ReferenceInfo",
    "ReferencesInfo",
    "RepoMap",
    "SymbolStructure",
]

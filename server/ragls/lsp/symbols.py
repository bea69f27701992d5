"""``workspace/symbol``: definitions and references by name across every session's folder
(SPEC §9, issue 28).

Each session's symbol index answers the query (:meth:`RagService.find_symbols`); the answers
are merged by the index's own ranking (match tier, definitions first, files outside tests
first) and returned as LSP ``SymbolInformation`` with the file's URI. A reference is reported
with the kind of what it names and a container saying where it is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from lsprotocol import types

from ragls.core.symbols import SymbolMatch, is_test_path
from ragls.lsp.context import ServerContext

MAX_WORKSPACE_SYMBOLS = 200

# The kinds of the tag queries (``@definition.KIND``, ``@reference.KIND``) as LSP kinds.
SYMBOL_KINDS: Mapping[str, types.SymbolKind] = MappingProxyType(
    {
        "call": types.SymbolKind.Function,
        "class": types.SymbolKind.Class,
        "constant": types.SymbolKind.Constant,
        "constructor": types.SymbolKind.Constructor,
        "enum": types.SymbolKind.Enum,
        "enum_variant": types.SymbolKind.EnumMember,
        "extension": types.SymbolKind.Class,  # Swift's and Dart's extensions of a type
        "field": types.SymbolKind.Field,
        "function": types.SymbolKind.Function,
        "implementation": types.SymbolKind.Class,
        "interface": types.SymbolKind.Interface,
        "macro": types.SymbolKind.Function,
        "method": types.SymbolKind.Method,
        "mixin": types.SymbolKind.Class,
        "module": types.SymbolKind.Module,
        "namespace": types.SymbolKind.Namespace,
        "object": types.SymbolKind.Object,
        "operator": types.SymbolKind.Operator,
        "property": types.SymbolKind.Property,
        "send": types.SymbolKind.Method,  # Ruby's calls (tags "send")
        "struct": types.SymbolKind.Struct,
        "trait": types.SymbolKind.Interface,
        "type": types.SymbolKind.TypeParameter,
        "variable": types.SymbolKind.Variable,
    }
)


def workspace_symbol(
    ls: ServerContext, params: types.WorkspaceSymbolParams
) -> list[types.SymbolInformation]:
    found: list[tuple[Path, SymbolMatch]] = []
    for session in ls.sessions.sessions():
        root, matches = session.service.find_symbols(params.query, MAX_WORKSPACE_SYMBOLS)
        if root is not None:
            found += [(root, match) for match in matches]
    found.sort(key=lambda item: _rank(item[1]))
    return [_information(root, match) for root, match in found[:MAX_WORKSPACE_SYMBOLS]]


def _rank(match: SymbolMatch) -> tuple[int, bool, bool, int]:
    return (match.tier, match.definition is None, is_test_path(match.path), len(match.name))


def _information(root: Path, match: SymbolMatch) -> types.SymbolInformation:
    uri = (root / match.path).as_uri()
    definition, reference = match.definition, match.reference
    if definition is not None:
        start = types.Position(definition.line, definition.column)
        end = types.Position(definition.end_line, definition.end_column)
        kind, container = definition.kind, definition.container
    else:
        assert reference is not None
        start = types.Position(reference.line, reference.column)
        end = types.Position(reference.line, reference.end_column)
        kind, container = reference.kind, f"{reference.kind} reference"
    return types.SymbolInformation(
        name=match.name,
        kind=SYMBOL_KINDS.get(kind, types.SymbolKind.Variable),
        location=types.Location(uri, types.Range(start, end)),
        container_name=container or None,
    )

"""Tag queries compiled once per process and language, with what each pattern finds (SPEC §8,
issue 28).

A language's query is the text of its tag query files (``ragls.ingest.tags.languages``) compiled
with its grammar. Beside it, per pattern, its *role*: whether its matches are definitions or
references and of which kind, read once from the pattern's text and its captures' quantifiers,
so that :func:`ragls.ingest.tags.extract.file_symbols` reads a match without looking at each of
its captures. A pattern whose role depends on the match (several role captures, or one that
may be missing) is read capture by capture, as tree-sitter's tags convention says: the first
``@definition.KIND`` or ``@reference.KIND`` capture.
"""

from __future__ import annotations

import importlib
import re
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path

from tree_sitter import Language, Node, Query

from ragls.ingest.chunking.grammars import GRAMMARS
from ragls.ingest.chunking.symbol_rules import CSHARP_NAMED_MEMBERS
from ragls.ingest.chunking.symbols import grammar_language
from ragls.ingest.tags.languages import QUERIES

_DEFINITION = "definition."
_REFERENCE = "reference."

# Per pattern of a compiled query: (definition or not, kind, the capture, the kind's number in
# the query) when the pattern has exactly one ``@definition.KIND``/``@reference.KIND`` capture
# and every match holds it once; NO_ROLE when it has none (its matches are no symbols); None
# when each match must be looked at.
Role = tuple[bool, str, str, int]
NO_ROLE = (False, "", "", -1)
_CAPTURE = re.compile(rb"@([\w.-]+)")
# Node types a name can have that extract._text names otherwise than by their text.
NAMED_OTHERWISE = ("operator_cast", "companion_object", *sorted(CSHARP_NAMED_MEMBERS))


class CompiledQuery:
    """A language's tag query and what each of its patterns finds (see :func:`_roles`)."""

    __slots__ = ("kind_numbers", "kinds", "named_by_text", "query", "quick", "roles")

    def __init__(self, query: Query, text: str, language: Language) -> None:
        self.query = query
        # whether every name is its node's text (the grammar has none of NAMED_OTHERWISE)
        self.named_by_text = all(
            language.id_for_node_kind(kind, True) is None for kind in NAMED_OTHERWISE
        )
        roles = (role_of(query.capture_name(index)) for index in range(query.capture_count))
        self.kinds = tuple(sorted({role[1] for role in roles if role is not None}))
        self.kind_numbers = {kind: number for number, kind in enumerate(self.kinds)}
        self.roles, self.quick = _roles(query, text.encode("utf-8"), self.kind_numbers)


def _roles(
    query: Query, text: bytes, kind_numbers: dict[str, int]
) -> tuple[tuple[Role | None, ...], tuple[int, ...]]:
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
    roles: list[Role | None] = []
    for pattern, held in enumerate(quantifiers):
        start, end = query.start_byte_for_pattern(pattern), query.end_byte_for_pattern(pattern)
        written = {m.decode() for m in _CAPTURE.findall(text[start:end])} & set(held)
        found = [(capture, role_of(capture)) for capture in sorted(written)]
        found_roles = [(capture, role) for capture, role in found if role is not None]
        if not found_roles and written == set(held):
            roles.append(NO_ROLE)
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
        role = role_of(capture)
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


_queries: dict[str, CompiledQuery | None] = {}
_queries_lock = threading.Lock()


def compiled_query(language: str) -> CompiledQuery | None:
    """``language``'s compiled tag query (None for a language without one)."""
    with _queries_lock:
        if language not in _queries:
            text = "\n".join(query_sources(language)) if language in QUERIES else ""
            if not text:
                _queries[language] = None
            else:
                grammar = grammar_language(language)
                _queries[language] = CompiledQuery(Query(grammar, text), text, grammar)
        return _queries[language]


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


@lru_cache(maxsize=256)
def role_of(capture: str) -> tuple[bool, str] | None:
    """(whether a definition, its kind) of a ``@definition.KIND`` or ``@reference.KIND``
    capture; None for others (``@name``, ``@doc``...)."""
    if capture.startswith(_DEFINITION):
        return True, capture[len(_DEFINITION) :]
    if capture.startswith(_REFERENCE):
        return False, capture[len(_REFERENCE) :]
    return None


def match_role(captures: dict[str, list[Node]], kind_numbers: dict[str, int]) -> Role | None:
    """The role of a match whose pattern does not say it: its first role capture's."""
    for capture in captures:
        role = role_of(capture)
        if role is not None:
            return role[0], role[1], capture, kind_numbers[role[1]]
    return None

"""Which tag queries find each language's definitions and references. Data only.

A language's queries are the ``queries/tags.scm`` its grammar wheel ships (``wheel``; some
wheels ship another language's too, ``also_wheels``: TypeScript extends JavaScript's) followed by
ragls's own files in ``queries/`` (``own``), which add what the shipped ones miss (fields,
constants, enums...) or stand alone where no wheel ships any. Captures follow tree-sitter's tags
convention: ``@name`` and one ``@definition.KIND`` or ``@reference.KIND``.

``TAGS_VERSION`` is part of every file's pipeline key (``FileIngestionService.static_key``):
changing a query or the extraction changes it, so the first run after an upgrade re-reads every
file and no file keeps the symbols of an older query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

TAGS_VERSION = "2"


@dataclass(frozen=True, slots=True)
class TagQueries:
    wheel: bool = True  # the grammar wheel's own queries/tags.scm
    also_wheels: tuple[str, ...] = ()  # the tags.scm of other grammar modules, first
    own: tuple[str, ...] = ()  # files in ragls.ingest.tags/queries
    # Where the grammar cannot read a file (a parse with errors), a regular expression over its
    # lines whose first matching group names a function defined there: zsh's syntax, which the
    # Bash grammar reads as errors and strings from the first zsh-only construct on.
    fallback: str = ""
    # Consecutive definitions of one name, kind and container are one (a function written as
    # several equations or clauses): one workspace symbol spanning them all.
    merge_clauses: bool = False


# Kinds that make a nested function a method.
CLASS_KINDS: frozenset[str] = frozenset(
    (
        "class",
        "interface",
        "struct",
        "trait",
        "object",
        "enum",
        "impl",
        "record",
        "protocol",
        "extension",
    )
)

QUERIES: Mapping[str, TagQueries] = MappingProxyType(
    {
        "bash": TagQueries(
            wheel=False,
            own=("bash.scm",),
            fallback=r"^[ \t]*(?:function[ \t]+([\w:.@-]+)[ \t]*(?:\(\))?"
            r"|([\w:.@-]+)[ \t]*\(\))[ \t]*\{?[ \t]*$",
        ),
        "c": TagQueries(own=("c.scm",)),
        "cpp": TagQueries(own=("c.scm", "cpp.scm")),
        "csharp": TagQueries(wheel=False, own=("csharp.scm",)),
        "dart": TagQueries(own=("dart.scm",)),
        "elixir": TagQueries(own=("elixir.scm",), merge_clauses=True),
        "go": TagQueries(),
        "haskell": TagQueries(wheel=False, own=("haskell.scm",), merge_clauses=True),
        "java": TagQueries(own=("java.scm",)),
        "julia": TagQueries(wheel=False, own=("julia.scm",)),
        "javascript": TagQueries(own=("javascript.scm", "javascript_fields.scm")),
        "kotlin": TagQueries(wheel=False, own=("kotlin.scm",)),
        "lua": TagQueries(),
        "ocaml": TagQueries(),
        "php": TagQueries(),
        "python": TagQueries(),
        "ruby": TagQueries(),
        "rust": TagQueries(),
        "scala": TagQueries(own=("scala.scm",)),
        "swift": TagQueries(wheel=False, own=("swift.scm",)),
        "tsx": TagQueries(
            also_wheels=("tree_sitter_javascript",), own=("javascript.scm", "typescript.scm")
        ),
        "typescript": TagQueries(
            also_wheels=("tree_sitter_javascript",), own=("javascript.scm", "typescript.scm")
        ),
        "zig": TagQueries(wheel=False, own=("zig.scm",)),
    }
)

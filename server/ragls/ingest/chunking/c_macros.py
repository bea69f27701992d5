"""C and C++ declarations that a macro hides from the grammar, parsed again without it.

Libraries mark what they export, inline or attribute with macros the parser cannot expand:
``class SPDLOG_API logger {``, ``SPDLOG_INLINE void registry::flush_all() {``,
``void now() SPDLOG_NOEXCEPT {``, Qt's ``class Q_CORE_EXPORT QString``, gtest's ``GTEST_API_``.
tree-sitter reads such a class as a function named after it and the members after the first
such definition as errors: in spdlog, 55% of the headers and sources parsed with errors and 48%
of their lines came after the first one, so their methods were no symbols.

:func:`without_declaration_macros` blanks (with spaces, so every byte offset and line stays
where it is) the upper-case names with an underscore that stand where only such a macro can:
between ``class``/``struct``/``union`` and the name, first on a line before a declaration, or
after a signature's closing parenthesis. A name followed by ``(`` (a macro call) or used as a
value is left alone, as is every preprocessor line. :func:`parse_c_family` parses the blanked
text only when the file did not parse cleanly and such a macro stands at or shortly before its
first error, and keeps that tree only when it holds fewer errors; names are never blanked, so
the symbols read from either tree are the file's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Tree

# An upper-case name holding an underscore (SPDLOG_API, Q_DECL_OVERRIDE, GTEST_API_), which
# leaves out the all-capital type names of C APIs (FILE, HANDLE, DWORD).
_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"
_AFTER_KEYWORD = re.compile(rb"\b(?:class|struct|union)\s+(" + _MACRO + rb")\s+(?=[A-Za-z_])")
_LINE_START = re.compile(rb"^[ \t]*(" + _MACRO + rb")[ \t]+(?=[A-Za-z_:~])", re.MULTILINE)
_AFTER_SIGNATURE = re.compile(
    rb"\)[ \t]*(?:const[ \t]*)?(" + _MACRO + rb")[ \t]*(?=[{;=]|override\b|final\b|$)",
    re.MULTILINE,
)
_PREPROCESSOR = re.compile(rb"^[ \t]*#.*$", re.MULTILINE)


def declaration_macros(source: bytes) -> list[tuple[int, int]]:
    """Where the declaration macros described in the module doc are in ``source``, in order."""
    directives = [match.span() for match in _PREPROCESSOR.finditer(source)]
    found = [
        match.span(1)
        for pattern in (_AFTER_KEYWORD, _LINE_START, _AFTER_SIGNATURE)
        for match in pattern.finditer(source)
    ]
    return sorted(span for span in found if not _inside(directives, span[0]))


def without_declaration_macros(source: bytes) -> bytes:
    """``source`` with the declaration macros described in the module doc blanked."""
    blanked = bytearray(source)
    for start, end in declaration_macros(source):
        blanked[start:end] = b" " * (end - start)
    return bytes(blanked)


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    low, high = 0, len(spans)
    while low < high:
        middle = (low + high) // 2
        if spans[middle][1] < offset:
            low = middle + 1
        else:
            high = middle
    return low < len(spans) and spans[low][0] <= offset <= spans[low][1]


def parse_c_family(
    source: bytes, parse: Callable[[bytes], Tree], errors: Callable[[Tree], int]
) -> Tree:
    """``source`` parsed by ``parse``; when that tree has errors and a declaration macro stands
    within :data:`_NEAR` bytes before the first one (or inside it), the parse of the text
    without its declaration macros if that one has fewer (``errors`` counts them)."""
    tree = parse(source)
    if not tree.root_node.has_error:
        return tree
    # Parsed again only when such a macro stands at or shortly before the first error (the
    # errors a macro causes begin where it stands): a file whose errors come from elsewhere
    # (a macro call the grammar misreads, a preprocessor branch) is not parsed twice.
    first = _first_error(tree)
    if first is None:
        return tree
    # The window's own search first (most files' first error has no such macro near it);
    # a line-start macro must be read from its line's start.
    start = source.rfind(b"\n", 0, max(first[0] - _NEAR, 0)) + 1
    if not declaration_macros(source[start : first[1]]):
        return tree
    again = parse(without_declaration_macros(source))
    return again if errors(again) < errors(tree) else tree


_NEAR = 400  # bytes before the first error where a macro may be its cause


def _first_error(tree: Tree) -> tuple[int, int] | None:
    """The byte span of the first error or missing node of ``tree``, if any."""
    node = tree.root_node
    while node.type != "ERROR" and not node.is_missing:
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            return None
        node = child
    return node.start_byte, node.end_byte

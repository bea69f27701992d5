"""Source lines of a file as the index's chunks hold them (secrets masked), and what a
definition's signature and doc lines are (:mod:`ragls.service.structure`): nothing is read from
disk, so nothing indexing would refuse is ever shown."""

from __future__ import annotations

from collections.abc import Sequence

from ragls.core.documents import Document
from ragls.core.symbols import Definition

MAX_DOC_LINES = 6
COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";;", "%", "'''", '"""')
DOCSTRING_STARTS = ('"""', "'''", 'r"""', "r'''", 'b"""')


class SourceLines:
    """One file's lines as its chunks hold them (0-based line numbers)."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self._lines: dict[int, str] = {}
        for document in documents:
            start = document.metadata.get("start_line", "")
            if not start.isdigit():
                continue
            first = int(start) - 1
            for offset, text in enumerate(document.content.split("\n")):
                self._lines.setdefault(first + offset, text)

    def get(self, line: int) -> str | None:
        return self._lines.get(line)

    def signature(self, definition: Definition) -> str | None:
        text = self._lines.get(definition.line)
        if text is None or definition.name not in text:
            return None  # not the line the index saw (a windowed chunk, a masked line)
        return text.strip()

    def doc(self, definition: Definition) -> tuple[str, ...]:
        """The comment lines right above the definition, else the docstring right below."""
        above: list[str] = []
        line = definition.line - 1
        while len(above) < MAX_DOC_LINES and (text := self._lines.get(line)) is not None:
            stripped = text.strip()
            if not stripped or not stripped.startswith(COMMENT_STARTS):
                break
            above.append(stripped)
            line -= 1
        if above:
            return tuple(reversed(above))
        return self._docstring(definition.line + 1, definition.end_line)

    def _docstring(self, line: int, last: int) -> tuple[str, ...]:
        # The first non-blank line of the body within three lines (past a signature spread
        # over several lines), if it opens a string literal.
        for candidate in range(line, min(line + 3, last) + 1):
            text = (self._lines.get(candidate) or "").strip()
            if text.startswith("#"):
                found: list[str] = []
                while text.startswith("#") and len(found) < MAX_DOC_LINES:
                    found.append(text)
                    candidate += 1
                    text = (self._lines.get(candidate) or "").strip()
                return tuple(found)
            if text.startswith(DOCSTRING_STARTS):
                quote = '"""' if '"""' in text else "'''"
                found = [text]
                if text.count(quote) >= 2:
                    return tuple(found)
                for after in range(candidate + 1, min(candidate + MAX_DOC_LINES, last + 1)):
                    more = (self._lines.get(after) or "").strip()
                    found.append(more)
                    if quote in more:
                        break
                return tuple(found)
        return ()

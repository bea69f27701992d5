"""NormalizedDocumentChunker: normalised text -> bounded chunks with provenance (SPEC §8).

Bounds (ours; peers use 40-80 lines): a chunk holds at most ``max_lines`` (60) lines and
``max_chars`` (4,000) characters. Units come from the format: tree-sitter symbols for code with a
grammar, heading sections for Markdown, paragraphs for text and data, cells or pages given by the
extractor for notebooks and PDFs, and plain line windows for code without a grammar. Units are
packed in order; a chunk carries at most one named unit (so every symbol gets its own chunk),
unnamed lines join a named unit only when there are at most eight of them (the comments and
decorators above it, the blank lines after it), and a unit too big for one chunk is split on line
boundaries. Blank lines at the edges of a chunk are trimmed, empty chunks dropped.

Every chunk's metadata, in this order: ``file``, ``format``, ``language``, ``start_line``,
``end_line`` (1-based, inclusive), then ``symbol`` and ``kind`` where known; its id is
``FILE:START-END``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from ragls.core.documents import Document
from ragls.core.symbols import NO_SYMBOLS, FileSymbols
from ragls.ingest.chunking.normalize import DEFAULT_MAX_LINE_CHARS, clean_text, cut_long_lines
from ragls.ingest.chunking.symbols import Unit, code_units, has_grammar, macro_bodies, parse
from ragls.ingest.chunking.units import markdown_units, paragraph_units
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.tags.extract import file_symbols, has_tags

CHUNKER_VERSION = "6"


@dataclass(frozen=True, slots=True)
class ChunkedFile:
    documents: list[Document]
    cut_lines: int
    symbols: FileSymbols = NO_SYMBOLS


class NormalizedDocumentChunker:
    def __init__(
        self,
        *,
        max_lines: int = 60,
        max_chars: int = 4_000,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    ) -> None:
        if min(max_lines, max_chars, max_line_chars) < 1 or max_line_chars > max_chars:
            raise ValueError("chunk bounds must be positive and max_line_chars <= max_chars")
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.max_line_chars = max_line_chars

    @property
    def version_key(self) -> str:
        """Changes whenever this chunker would cut the same text differently."""
        return f"chunker-{CHUNKER_VERSION}:{self.max_lines}:{self.max_chars}:{self.max_line_chars}"

    def chunk(
        self,
        text: str,
        *,
        file: str,
        format: DocumentFormat,
        language: str = "",
        blocks: Sequence[Unit] | None = None,
        with_symbols: bool = False,
    ) -> ChunkedFile:
        """``with_symbols``: also the definitions and references of code with tag queries,
        from the same parse (``ragls.ingest.tags``)."""
        cleaned = clean_text(text)
        normalized, cut = cut_long_lines(cleaned, self.max_line_chars)
        if not normalized.strip():
            return ChunkedFile([], cut)
        lines = normalized.split("\n")
        symbols = NO_SYMBOLS
        if blocks is not None:
            units = list(blocks)
        elif format is DocumentFormat.CODE and has_grammar(language):
            # The text before the cut is parsed: a long line cut inside a string literal (a
            # 2,700-character list of URL schemes in a PHP class) left the string open, and
            # every symbol after it (70 methods) was chunked as plain windows. Its lines are
            # the cut text's, so the units' line numbers hold for both.
            source = cleaned.encode("utf-8")
            tree = parse(source, language)
            bodies = macro_bodies(tree, language)  # parsed once, for the units and the tags
            units = code_units(normalized, language, self.max_lines, tree, bodies)
            if with_symbols and has_tags(language):
                symbols = file_symbols(tree, source, language, bodies)
        else:
            units = self._units(lines, format)
        documents = []
        for chunk in self._pack(units, lines):
            start, end, symbol, kind = chunk.start, chunk.end, chunk.symbol, chunk.kind
            body = "\n".join(lines[start : end + 1])
            metadata = {
                "file": file,
                "format": format.value,
                "language": language,
                "start_line": str(start + 1),
                "end_line": str(end + 1),
            }
            if symbol:
                metadata["symbol"] = symbol
            if kind:
                metadata["kind"] = kind
            documents.append(Document(f"{file}:{start + 1}-{end + 1}", body, metadata))
        return ChunkedFile(documents, cut, symbols)

    @staticmethod
    def _units(lines: list[str], format: DocumentFormat) -> list[Unit]:
        """The units of text without a grammar."""
        if format is DocumentFormat.CODE:
            return [Unit(0, len(lines) - 1)]
        if format is DocumentFormat.MARKDOWN:
            return markdown_units(lines)
        return paragraph_units(lines)

    def _split(self, unit: Unit, ends: list[int]) -> list[Unit]:
        """``unit`` cut into pieces within both bounds, on line boundaries. ``ends[i]`` is the
        characters of lines ``0..i-1``, each with its line break (:func:`_line_ends`): a
        piece is the longest run of lines from its start, at most ``max_lines``, whose text
        (breaks between them) is at most ``max_chars``, and at least one line."""
        pieces = []
        start = unit.start
        while start <= unit.end:
            # The text of lines start..e is ends[e + 1] - ends[start] - 1 characters.
            fits = bisect_right(ends, ends[start] + self.max_chars + 1) - 2
            end = max(start, min(fits, unit.end, start + self.max_lines - 1))
            pieces.append(Unit(start, end, unit.symbol, unit.kind))
            start = end + 1
        return pieces

    def _pack(self, units: list[Unit], lines: list[str]) -> list[_Chunk]:
        ends = _line_ends(lines)
        packed: list[_Chunk] = []
        for unit in units:
            for piece in self._split(unit, ends):
                chars = ends[piece.end + 1] - ends[piece.start]
                last = packed[-1] if packed else None
                if (
                    last is not None
                    and piece.end - last.start + 1 <= self.max_lines
                    and last.chars + chars <= self.max_chars
                    and _mergeable(last, piece)
                ):
                    last.end = piece.end
                    last.chars += chars
                    if piece.symbol:
                        last.symbol, last.kind = piece.symbol, piece.kind
                    continue
                packed.append(_Chunk(piece.start, piece.end, piece.symbol, piece.kind, chars))
        trimmed = []
        for chunk in packed:
            while chunk.start <= chunk.end and not lines[chunk.start].strip():
                chunk.start += 1
            while chunk.end >= chunk.start and not lines[chunk.end].strip():
                chunk.end -= 1
            if chunk.start <= chunk.end:
                trimmed.append(chunk)
        return trimmed


ATTACHED_LINES = 8


def _line_ends(lines: list[str]) -> list[int]:
    """``[0, len(line 0) + 1, ...]``: the characters before each line, line breaks included."""
    return [0, *accumulate(len(line) + 1 for line in lines)]


def _mergeable(chunk: _Chunk, piece: Unit) -> bool:
    """Two named units never share a chunk; unnamed lines join a named unit only when they are
    few (comments, decorators, a closing brace); unnamed lines join each other freely."""
    if chunk.symbol and piece.symbol:
        return False
    if not chunk.symbol and not piece.symbol:
        return True
    unnamed_lines = chunk.end - chunk.start + 1 if piece.symbol else piece.end - piece.start + 1
    return unnamed_lines <= ATTACHED_LINES


@dataclass(slots=True)
class _Chunk:
    start: int
    end: int
    symbol: str
    kind: str
    chars: int

"""Extractors: raw bytes of a detected format -> text, and structural blocks where the format has
them (SPEC §8). A failure is an :class:`ExtractionError` carrying the reason; callers report it
and go on.

* Source code, Markdown, plain text, reStructuredText and the data formats (JSON, YAML, TOML, INI,
  XML, CSV) are decoded text, kept as they are.
* HTML: the text without markup; ``script``, ``style``, ``template`` and ``noscript`` are dropped,
  block elements end lines, character references are decoded.
* Jupyter notebooks: the cells' sources, one block per cell (``cell N``, kind ``markdown-cell`` or
  ``code-cell``), outputs dropped; the language is the notebook's kernel language.
* PDF (pypdf, loaded on first use): the text of each page, one block per page (``page N``).
Line numbers of notebooks and PDFs refer to this extracted text.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from html.parser import HTMLParser

from ragls.ingest.chunking.symbols import Unit
from ragls.ingest.formats import Detected, DocumentFormat, decode_text

EXTRACTOR_VERSION = "1"


class ExtractionError(Exception):
    """The file's content could not be turned into text; the message says why."""


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    language: str = ""
    blocks: list[Unit] | None = field(default=None)


def extract(detected: Detected, data: bytes) -> Extracted:
    if detected.format is DocumentFormat.PDF:
        return _pdf(data)
    text = decode_text(data)
    if text is None:
        raise ExtractionError("content is not text")
    if detected.format is DocumentFormat.HTML:
        return Extracted(_html_text(text))
    if detected.format is DocumentFormat.NOTEBOOK:
        return _notebook(text)
    return Extracted(text, detected.language)


_SKIPPED_ELEMENTS = frozenset(("script", "style", "template", "noscript"))
_BLOCK_ELEMENTS = frozenset(
    """address article aside blockquote br dd div dl dt fieldset figcaption figure footer form h1
    h2 h3 h4 h5 h6 header hr li main nav ol p pre section table td th tr ul""".split()
)


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_ELEMENTS:
            self._skipping += 1
        elif tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_ELEMENTS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def _html_text(markup: str) -> str:
    collector = _TextCollector()
    collector.feed(markup)
    collector.close()
    lines = [" ".join(line.split()) for line in "".join(collector.parts).split("\n")]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n")


def _notebook(text: str) -> Extracted:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        message = f"notebook is not valid JSON: {error.msg} at line {error.lineno}"
        raise ExtractionError(message) from error
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ExtractionError("notebook has no list of cells")
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    language = ""
    for key in ("kernelspec", "language_info"):
        section = metadata.get(key) if isinstance(metadata, dict) else None
        if isinstance(section, dict):
            value = section.get("language") or section.get("name")
            if isinstance(value, str) and not language:
                language = value.lower()
    pieces: list[str] = []
    blocks: list[Unit] = []
    line = 0
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict):
            raise ExtractionError(f"notebook cell {number} is not an object")
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ExtractionError(f"notebook cell {number} has no text source")
        cell_type = cell.get("cell_type")
        kind = "markdown-cell" if cell_type == "markdown" else f"{cell_type or 'raw'}-cell"
        body = source.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
        if not body.strip():
            continue
        height = body.count("\n") + 1
        blocks.append(Unit(line, line + height - 1, f"cell {number}", kind))
        pieces.append(body)
        line += height + 1  # one blank line between cells
    return Extracted("\n\n".join(pieces), language, blocks)


def _pdf(data: bytes) -> Extracted:
    from pypdf import PdfReader  # heavy: loaded only when a PDF is met
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as error:
        raise ExtractionError(f"PDF cannot be read: {error}") from error
    pieces: list[str] = []
    blocks: list[Unit] = []
    line = 0
    for number, page in enumerate(pages, start=1):
        body = "\n".join(part.rstrip() for part in page.replace("\r", "").split("\n")).strip("\n")
        if not body.strip():
            continue
        height = body.count("\n") + 1
        blocks.append(Unit(line, line + height - 1, f"page {number}", "page"))
        pieces.append(body)
        line += height + 1
    return Extracted("\n\n".join(pieces), "", blocks)

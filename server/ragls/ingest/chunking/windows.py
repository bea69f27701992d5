"""How a source file is chunked, and which files fall back to line windows (SPEC §8).

Code in a language with a grammar is cut at its symbols; code in any other language is cut into
plain line windows, which ``ragls explain`` says and status counts (``windowedLanguages``), so a
user can tell why a file's chunks carry no symbol names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ragls.core.documents import Document
from ragls.ingest.chunking.symbols import has_grammar
from ragls.ingest.formats import DocumentFormat


def code_chunking(language: str) -> str:
    """How a source file in ``language`` is chunked, in words."""
    if has_grammar(language):
        return f"chunked by symbols: {language} grammar"
    return f"chunked as line windows: no grammar for {language or 'its language'}"


def windowed_languages(documents: Iterable[Document]) -> Counter[str]:
    """Files among ``documents``' sources (each counted once) that are code in a language
    without a grammar, by language."""
    languages: dict[str, str] = {}
    for document in documents:
        metadata = document.metadata
        language = metadata.get("language", "")
        if metadata.get("format") == DocumentFormat.CODE.value and not has_grammar(language):
            languages[metadata.get("file", "")] = language or "unknown"
    return Counter(languages.values())

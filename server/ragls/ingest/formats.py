"""DocumentFormat and AUTO detection (SPEC §8): by name and extension, then by content.

There is no separate extension allow-list: a file is a candidate when detection gives a
supported format. Known binary extensions are refused without reading; otherwise the content
decides: NUL bytes (outside a UTF-16 BOM) or text that decodes to mostly control characters is
binary; a shebang names a language; any other readable text of an unknown kind is plain text.
A ``.h`` header is C unless its own text has syntax only C++ has (:func:`is_cpp_header`):
decided per file, from its bytes alone, so a header's language never depends on its neighbours.
Decoding: UTF-8 (BOM stripped), UTF-16 with a BOM, else Windows-1252 and finally Latin-1.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from ragls.ingest.format_tables import (
    BINARY_EXTENSIONS,
    DATA_EXTENSIONS,
    LANGUAGE_BY_EXTENSION,
    LANGUAGE_BY_FILENAME,
    LANGUAGE_BY_INTERPRETER,
    MARKUP_EXTENSIONS,
)


class DocumentFormat(enum.Enum):
    AUTO = "auto"
    CODE = "code"
    MARKDOWN = "markdown"
    TEXT = "text"
    RESTRUCTUREDTEXT = "rst"
    HTML = "html"
    JSON = "json"
    YAML = "yaml"
    TOML = "toml"
    INI = "ini"
    XML = "xml"
    CSV = "csv"
    NOTEBOOK = "notebook"
    PDF = "pdf"


@dataclass(frozen=True, slots=True)
class Detected:
    format: DocumentFormat
    language: str  # "" when it has none


_SHEBANG = re.compile(rb"^#![ \t]*(\S+)(?:[ \t]+(\S+))?")
_SNIFF_BYTES = 8192
# Control characters other than tab, newline, form feed and carriage return: many mean binary.
# Control characters that mark binary content. ESC is not one: terminal output and scripts
# that colour it hold ANSI escape sequences, and a text file with a single ESC is text.
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")


def _extension(name: str) -> str:
    lowered = name.lower()
    dot = lowered.rfind(".")
    return lowered[dot:] if dot > 0 else ""


# Syntax C++ has and C does not, at the start of a line: a namespace, a template, a class with a
# body or a base, an access specifier, a using-declaration, a standard header without ``.h``
# (``<vector>``), a function declared with a qualified name (``void ns::Class::method(``).
# ``extern "C"`` is not one (C headers say it for C++ readers), nor is ``std::`` anywhere
# (C headers' comments mention it).
_CPP_HEADER = re.compile(
    rb"^[ \t]*(?:"
    rb"(?:inline[ \t]+)?namespace(?:[ \t]+[\w:]+)?[ \t]*(?:\{|=|$)"
    rb"|template[ \t]*<"
    rb"|class[ \t]+\w+(?:[ \t]+\w+)*[ \t]*(?:final[ \t]*)?(?::[^:]|\{|$)"
    rb"|(?:public|private|protected)[ \t]*:(?!:)"
    rb"|using[ \t]+(?:namespace[ \t]+)?[\w:]+[ \t]*[;=]"
    rb"|#[ \t]*include[ \t]*<[\w/]+>"
    rb"|(?:\w+[ \t*&]+)+\w+(?:::~?\w+)+[ \t]*\("
    rb")",
    re.MULTILINE,
)


_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", re.MULTILINE)


def _outside_cplusplus_blocks(data: bytes) -> bytes:
    """``data`` without the conditional blocks whose condition names ``__cplusplus`` (nested
    blocks within them too, their ``#else`` parts too): what a C compiler always reads."""
    kept: list[bytes] = []
    depth = 0  # of conditionals opened, counting from the outermost dropped one
    start = 0
    for match in _CONDITIONAL.finditer(data):
        directive = match.group(1)
        if depth == 0:
            if directive in (b"if", b"ifdef", b"ifndef") and b"__cplusplus" in match.group(2):
                kept.append(data[start : match.start()])
                depth = 1
        elif directive in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif directive == b"endif":
            depth -= 1
            if depth == 0:
                start = match.end()
    if depth == 0:
        kept.append(data[start:])
    return b"".join(kept)


def is_cpp_header(data: bytes) -> bool:
    """Whether a ``.h`` file is C++: outside ``#ifdef __cplusplus`` blocks (a C header's extras
    for C++ readers), its text has a line only C++ has (``_CPP_HEADER``). Cheap (a regular
    expression scan of ``.h`` files only; the blocks are looked for only in a header that names
    ``__cplusplus`` and has such a line) and deterministic per file."""
    if _CPP_HEADER.search(data) is None:
        return False
    if b"__cplusplus" not in data:
        return True
    return _CPP_HEADER.search(_outside_cplusplus_blocks(data)) is not None


def detect_by_name(name: str) -> Detected | None:
    """The format the name alone tells, None if the content must decide."""
    lowered = name.lower()
    if lowered in LANGUAGE_BY_FILENAME:
        return Detected(DocumentFormat.CODE, LANGUAGE_BY_FILENAME[lowered])
    extension = _extension(name)
    if extension in LANGUAGE_BY_EXTENSION:
        return Detected(DocumentFormat.CODE, LANGUAGE_BY_EXTENSION[extension])
    if extension in MARKUP_EXTENSIONS:
        return Detected(DocumentFormat(MARKUP_EXTENSIONS[extension]), "")
    if extension in DATA_EXTENSIONS:
        return Detected(DocumentFormat(DATA_EXTENSIONS[extension]), "")
    return None


def is_binary_name(name: str) -> bool:
    return _extension(name) in BINARY_EXTENSIONS


def looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KiB (UTF-16 with a BOM excepted)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return b"\x00" in data[:_SNIFF_BYTES]


def shebang_language(data: bytes) -> str | None:
    match = _SHEBANG.match(data[:256])
    if not match:
        return None
    interpreter = match.group(1).rsplit(b"/", 1)[-1]
    if interpreter == b"env" and match.group(2):
        interpreter = match.group(2).rsplit(b"/", 1)[-1]
    name = re.sub(rb"[0-9.]+$", b"", interpreter).decode("ascii", "replace")
    return LANGUAGE_BY_INTERPRETER.get(name)


def detect(name: str, data: bytes) -> Detected | None:
    """AUTO detection for a file called ``name`` with content ``data``; None if unsupported."""
    if data.startswith(b"%PDF-") or _extension(name) == ".pdf":
        return Detected(DocumentFormat.PDF, "")
    if is_binary_name(name) or looks_binary(data):
        return None
    by_name = detect_by_name(name)
    if by_name is not None:
        if by_name.language == "c" and _extension(name) == ".h" and is_cpp_header(data):
            return Detected(DocumentFormat.CODE, "cpp")
        return by_name
    language = shebang_language(data)
    if language is not None:
        return Detected(DocumentFormat.CODE, language)
    return Detected(DocumentFormat.TEXT, "")


def decode_text(data: bytes) -> str | None:
    """Decoded text, or None if it is not text at all (mostly control characters)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    sample = text[:_SNIFF_BYTES]
    controls = len(_CONTROL.findall(sample))
    if sample and controls / len(sample) > 0.1:
        return None
    return text

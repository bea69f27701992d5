"""AUTO detection, decoding and the extractors, broken inputs included (SPEC §8)."""

from __future__ import annotations

import json

import pytest

from ragls.ingest.extract import ExtractionError, extract
from ragls.ingest.formats import Detected, DocumentFormat, decode_text, detect
from tests.ingest.trees import minimal_pdf


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("app.py", (DocumentFormat.CODE, "python")),
        ("App.TSX", (DocumentFormat.CODE, "tsx")),
        ("main.rs", (DocumentFormat.CODE, "rust")),
        ("Makefile", (DocumentFormat.CODE, "make")),
        ("README.md", (DocumentFormat.MARKDOWN, "")),
        ("notes.txt", (DocumentFormat.TEXT, "")),
        ("guide.rst", (DocumentFormat.RESTRUCTUREDTEXT, "")),
        ("page.html", (DocumentFormat.HTML, "")),
        ("data.json", (DocumentFormat.JSON, "")),
        ("conf.yml", (DocumentFormat.YAML, "")),
        ("pyproject.toml", (DocumentFormat.TOML, "")),
        ("setup.cfg", (DocumentFormat.INI, "")),
        ("pom.xml", (DocumentFormat.XML, "")),
        ("table.csv", (DocumentFormat.CSV, "")),
        ("nb.ipynb", (DocumentFormat.NOTEBOOK, "")),
        ("LICENSE", (DocumentFormat.TEXT, "")),
    ],
)
def test_detection_by_name(name: str, expected: tuple[DocumentFormat, str]) -> None:
    assert detect(name, b"some text\n") == Detected(*expected)


@pytest.mark.parametrize(
    ("first_line", "language"),
    [
        (b"#!/usr/bin/env python3\n", "python"),
        (b"#!/bin/bash\n", "bash"),
        (b"#! /usr/bin/env node\n", "javascript"),
        (b"#!/usr/bin/ruby2.7 -w\n", "ruby"),
    ],
)
def test_shebang_names_the_language(first_line: bytes, language: str) -> None:
    assert detect("script", first_line + b"echo hi\n") == Detected(DocumentFormat.CODE, language)


def test_nul_bytes_and_binary_extensions_are_binary() -> None:
    assert detect("blob.dat", b"abc\x00def") is None
    assert detect("image.png", b"looks like text") is None
    assert detect("notes.txt", b"\x00\x01\x02") is None


def test_pdf_is_detected_by_magic_or_extension() -> None:
    assert detect("paper", b"%PDF-1.4\n...") == Detected(DocumentFormat.PDF, "")
    assert detect("paper.pdf", b"garbage") == Detected(DocumentFormat.PDF, "")


def test_decoding_handles_boms_utf16_and_legacy_encodings() -> None:
    assert decode_text(b"\xef\xbb\xbfhello") == "hello"
    assert decode_text("h\u00e9llo".encode("utf-16")) == "h\u00e9llo"
    assert detect("x.txt", "hi".encode("utf-16")) == Detected(DocumentFormat.TEXT, "")
    assert decode_text(b"caf\xe9 cr\xe8me") == "café crème"  # invalid UTF-8: Windows-1252
    assert decode_text(b"\x81\x8d\x8f") is not None  # undefined in 1252: Latin-1, never fails
    assert decode_text(b"\x01\x02\x03\x04 binaryish") is None


def test_html_keeps_text_and_drops_markup_and_scripts() -> None:
    html = b"<html><head><style>p{}</style><script>var evil=1;</script></head><body>"
    html += b"<h1>Title &amp; more</h1><p>First <b>bold</b> para.</p><div>Second</div></body>"
    text = extract(Detected(DocumentFormat.HTML, ""), html).text
    assert text.split("\n") == ["Title & more", "", "First bold para.", "", "Second"]


def test_notebook_cells_become_blocks_without_outputs() -> None:
    notebook = {
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "cells": [
            {"cell_type": "markdown", "source": ["# Analysis\n", "Intro text"]},
            {"cell_type": "code", "source": "import pandas\nprint(1)", "outputs": [{"text": "1"}]},
        ],
    }
    extracted = extract(Detected(DocumentFormat.NOTEBOOK, ""), json.dumps(notebook).encode())
    assert extracted.text == "# Analysis\nIntro text\n\nimport pandas\nprint(1)"
    assert extracted.language == "python"
    assert extracted.blocks is not None
    assert [(b.start, b.end, b.symbol, b.kind) for b in extracted.blocks] == [
        (0, 1, "cell 1", "markdown-cell"),
        (3, 4, "cell 2", "code-cell"),
    ]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[1, 2]",
        b'{"cells": "nope"}',
        b'{"cells": [3]}',
        b'{"cells": [{"source": 5}]}',
    ],
)
def test_malformed_notebooks_fail_with_a_reason(content: bytes) -> None:
    with pytest.raises(ExtractionError, match="notebook"):
        extract(Detected(DocumentFormat.NOTEBOOK, ""), content)


def test_pdf_pages_become_blocks() -> None:
    extracted = extract(Detected(DocumentFormat.PDF, ""), minimal_pdf(["Hello page one", "Two"]))
    assert "Hello page one" in extracted.text
    assert extracted.blocks is not None
    assert [b.symbol for b in extracted.blocks] == ["page 1", "page 2"]


def test_a_truncated_pdf_fails_with_a_reason() -> None:
    data = minimal_pdf(["Hello page one"])
    with pytest.raises(ExtractionError, match="PDF"):
        extract(Detected(DocumentFormat.PDF, ""), data[: len(data) // 3])


def test_undecodable_text_fails_with_a_reason() -> None:
    with pytest.raises(ExtractionError, match="not text"):
        extract(Detected(DocumentFormat.TEXT, ""), b"\x01\x02\x03\x04\x05\x06 x")


def test_a_text_file_with_a_single_escape_byte_is_text() -> None:
    from ragls.ingest.formats import decode_text

    assert decode_text(b"\x1b") == "\x1b"
    assert decode_text(b"red: \x1b[31mred\x1b[0m\n") is not None
    assert decode_text(bytes(range(1, 9)) * 20) is None  # mostly control characters


@pytest.mark.parametrize(
    "header",
    [
        b"#pragma once\nnamespace fmt {\nint f();\n}\n",
        b"template <typename T> struct box { T value; };\n",
        b"class FMT_API format_error : public std::runtime_error {};\n",
        b"#include <vector>\nint f();\n",
        b"struct point {\n public:\n  int x;\n};\n",
        b"using string_view = basic_string_view<char>;\n",
        b"#pragma once\nINLINE bool sinks::sink::should_log(int level) const {\n  return 1;\n}\n",
    ],
)
def test_a_header_with_cpp_only_syntax_is_cpp(header: bytes) -> None:
    assert detect("api.h", header) == Detected(DocumentFormat.CODE, "cpp")


def test_a_c_header_stays_c_even_when_it_is_meant_for_cpp_too() -> None:
    header = (
        b'#ifndef JV_H\n#include <stdio.h>\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
        b"/* a class of values; see the C++ API in namespace docs */\n"
        b"typedef struct jv_refcnt jv_refcnt;\nint jv_get_kind(int class);\n"
        b"#ifdef __cplusplus\n}\n#endif\n#endif\n"
    )
    assert detect("jv.h", header) == Detected(DocumentFormat.CODE, "c")
    # C++ only for C++ readers, inside #ifdef __cplusplus (nested conditionals too), and a
    # comment that mentions std::pair
    guarded = (
        b"/* like std::pair<int, int> */\ntypedef struct pair pair;\n"
        b"#if defined(__cplusplus)\n#  ifdef FAST\nnamespace x {}\n#  endif\n"
        b"template <class T> inline bool isnan(T);\n#else\nint isnan(double);\n#endif\n"
    )
    assert detect("math.h", guarded) == Detected(DocumentFormat.CODE, "c")
    assert detect("both.h", guarded + b"namespace y {}\n") == Detected(DocumentFormat.CODE, "cpp")
    # only .h is sniffed: a .c file is C whatever it holds
    assert detect("odd.c", b"namespace x {}\n") == Detected(DocumentFormat.CODE, "c")

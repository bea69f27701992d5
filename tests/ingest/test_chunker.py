"""Normalisation, structural units and bounded chunks with provenance (SPEC §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.chunking.code_chunker import CodeChunker
from ragls.ingest.chunking.normalize import normalize_text
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.ingestion import FileIngestionService
from tests.ingest.trees import make_tree

PYTHON = '''import os


class Greeter:
    """Says hello."""

    def hello(self, name):
        return f"hello {name}"

    def bye(self):
        return "bye"


def main():
    print(Greeter().hello("x"))
'''


def chunk_code(text: str, language: str, **bounds: int) -> list[dict[str, str]]:
    chunker = NormalizedDocumentChunker(**bounds)
    result = chunker.chunk(text, file="f", format=DocumentFormat.CODE, language=language)
    return [dict(d.metadata, id=d.id, content=d.content) for d in result.documents]


def test_normalisation() -> None:
    text, cut = normalize_text("\ufeffa\r\nb\rc\x00\x07d\te\u0301")
    assert text == "a\nb\ncd\t\u00e9"
    assert cut == 0


def test_over_long_lines_are_cut_and_counted() -> None:
    text, cut = normalize_text("short\n" + "x" * 5000 + "\nend", max_line_chars=2000)
    assert text.split("\n") == ["short", "x" * 2000, "end"]
    assert cut == 1


def test_a_line_cut_inside_a_string_leaves_the_symbols_after_it_whole() -> None:
    """The cut text is what chunks hold, but the text before the cut is parsed: cut in the
    middle of a string, a long line left the string open and every symbol after it unparsed."""
    schemes = "|".join(f"scheme{n}" for n in range(40))
    text = (
        f'PATTERN = "{schemes}"\n\n\ndef after():\n    return 1\n\n\ndef later():\n    return 2\n'
    )
    chunks = chunk_code(text, "python", max_lines=3, max_line_chars=100)
    assert {c["symbol"] for c in chunks if "symbol" in c} == {"after", "later"}
    assert max(len(line) for c in chunks for line in c["content"].split("\n")) == 100
    result = NormalizedDocumentChunker(max_line_chars=100).chunk(
        text, file="f.py", format=DocumentFormat.CODE, language="python", with_symbols=True
    )
    assert result.cut_lines == 1
    assert {"after", "later"} <= set(result.symbols.definition_names)


def test_metadata_keys_order_and_ids() -> None:
    [first, *_] = chunk_code(PYTHON, "python")
    assert list(first) == [
        "file",
        "format",
        "language",
        "start_line",
        "end_line",
        "symbol",
        "kind",
        "id",
        "content",
    ]
    assert first["id"] == f"f:{first['start_line']}-{first['end_line']}"


def test_small_symbols_are_whole_chunks() -> None:
    chunks = chunk_code(PYTHON, "python")
    assert [(c.get("symbol", ""), c["start_line"], c["end_line"]) for c in chunks] == [
        ("Greeter", "1", "11"),
        ("main", "14", "15"),
    ]


def test_big_classes_split_into_qualified_methods() -> None:
    chunks = chunk_code(PYTHON, "python", max_lines=4)
    symbols = [(c.get("symbol", ""), c.get("kind", "")) for c in chunks]
    assert ("Greeter.hello", "method") in symbols
    assert ("Greeter.bye", "method") in symbols
    assert ("main", "function") in symbols
    for chunk in chunks:
        assert int(chunk["end_line"]) - int(chunk["start_line"]) + 1 <= 4


def test_every_line_is_covered_once_and_in_order() -> None:
    source = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(30))
    chunks = chunk_code(source, "python", max_lines=10)
    covered = []
    for chunk in chunks:
        covered.extend(range(int(chunk["start_line"]), int(chunk["end_line"]) + 1))
    assert covered == sorted(set(covered))
    body_lines = [i + 1 for i, line in enumerate(source.split("\n")) if line.strip()]
    assert set(body_lines) <= set(covered)


def test_chunks_respect_line_and_character_bounds() -> None:
    long_function = "def big():\n" + "".join(f"    x{i} = {'y' * 50}\n" for i in range(500))
    chunks = chunk_code(long_function, "python", max_lines=60, max_chars=2000)
    assert len(chunks) > 1
    for chunk in chunks:
        assert int(chunk["end_line"]) - int(chunk["start_line"]) + 1 <= 60
        assert len(chunk["content"]) <= 2000
        assert chunk["symbol"] == "big"


SAMPLES = {
    "javascript": (
        "function greet(name) {\n  return name;\n}\nclass Box { open() {} }\n",
        {"greet", "Box"},
    ),
    "typescript": (
        "interface Shape { area(): number }\nexport function area(s: Shape) { return 1 }\n",
        {"Shape", "area"},
    ),
    "tsx": ("export function App() {\n  return <div/>;\n}\n", {"App"}),
    "java": ("class Hello {\n  void run() {}\n}\n", {"Hello"}),
    "go": ("package main\nfunc Run() {}\ntype T struct{}\n", {"Run", "T"}),
    "rust": (
        "fn run() {}\nstruct S { a: i32 }\nimpl S { fn new() -> S { S { a: 1 } } }\n",
        {"run", "S"},
    ),
    "c": ("int add(int a, int b) { return a + b; }\nstruct point { int x; };\n", {"add", "point"}),
    "cpp": (
        "namespace ns { class K { public: void m(); }; }\nint f() { return 1; }\n",
        {"ns", "f"},
    ),
    "csharp": ("namespace N { class C { void M() {} } }\n", {"N"}),
    "ruby": ("class Dog\n  def bark\n  end\nend\ndef walk\nend\n", {"Dog", "walk"}),
    "php": (
        "<?php\nfunction hello() { return 1; }\nclass Cat { function meow() {} }\n",
        {"hello", "Cat"},
    ),
    "bash": ("#!/bin/bash\ngreet() {\n  echo hi\n}\n", {"greet"}),
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_each_grammar_yields_named_symbols(language: str) -> None:
    source, expected = SAMPLES[language]
    chunker = NormalizedDocumentChunker(max_lines=1)
    documents = chunker.chunk(source, file="f", format=DocumentFormat.CODE, language=language)
    symbols = {d.metadata.get("symbol") for d in documents.documents}
    assert expected <= symbols


def test_languages_without_a_grammar_use_line_windows() -> None:
    source = "\n".join(f"      x{i} = {i}" for i in range(130))
    chunks = chunk_code(source, "fortran", max_lines=60)
    assert [(c["start_line"], c["end_line"]) for c in chunks] == [
        ("1", "60"),
        ("61", "120"),
        ("121", "130"),
    ]
    assert all("symbol" not in c for c in chunks)


def test_markdown_sections_are_named_by_heading_path() -> None:
    text = (
        "intro\n\n# Install\n\nsteps\n\n## Linux\n\napt\n\n```\n# not a heading\n```\n# Use\nrun\n"
    )
    chunker = NormalizedDocumentChunker()
    documents = chunker.chunk(text, file="r.md", format=DocumentFormat.MARKDOWN).documents
    # The two unnamed lines before the first heading join it (at most eight unnamed lines do).
    assert [(d.metadata.get("symbol"), d.metadata["start_line"]) for d in documents] == [
        ("Install", "1"),
        ("Install > Linux", "7"),
        ("Use", "14"),
    ]


def test_text_paragraphs_are_packed_within_bounds() -> None:
    text = "\n\n".join(f"paragraph {i} line one\nline two" for i in range(40))
    chunker = NormalizedDocumentChunker(max_lines=20)
    documents = chunker.chunk(text, file="t.txt", format=DocumentFormat.TEXT).documents
    assert len(documents) > 1
    for document in documents:
        lines = int(document.metadata["end_line"]) - int(document.metadata["start_line"]) + 1
        assert lines <= 20
        assert not document.content.startswith("\n") and not document.content.endswith("\n")


def test_blank_text_has_no_chunks() -> None:
    result = NormalizedDocumentChunker().chunk(
        " \n\n\t\n", file="e.txt", format=DocumentFormat.TEXT
    )
    assert result.documents == []


def test_code_chunker_matches_file_ingest(tmp_path: Path) -> None:
    make_tree(tmp_path, {"pkg/mod.py": PYTHON * 5})
    service = FileIngestionService()
    config = KnowledgeSourceConfig(tmp_path)
    [candidate] = service.discover(config).candidates
    data = service.read(config, candidate)
    ingested = service.ingest(
        config, candidate.path, data, service.detect(config, candidate.path, data)
    )
    alone = CodeChunker().chunk(tmp_path / "pkg" / "mod.py", root=tmp_path)
    assert alone == ingested.documents
    assert alone[0].id.startswith("pkg/mod.py:")

"""Definitions and references from the chunker's parse (ragls.ingest.tags), kept per file by
the indexer as its chunks are."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.core.symbols import FileSymbols
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.indexer import FileIndexer
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.tags.languages import QUERIES
from tests.ingest.sample_symbols import EXPECTED_SYMBOLS
from tests.ingest.trees import make_tree

SAMPLES = Path(__file__).parent / "samples"


def symbols_of(name: str, content: str | bytes) -> FileSymbols:
    data = content.encode() if isinstance(content, str) else content
    service = FileIngestionService()
    config = KnowledgeSourceConfig(Path("."))
    return service.ingest(config, name, data, service.detect(config, name, data)).symbols


def test_methods_are_qualified_by_their_class_and_calls_know_where_they_are() -> None:
    found = symbols_of(
        "shop.py",
        "class Cart:\n"
        "    def total(self):\n"
        "        return sum_prices(self)\n"
        "\n"
        "def sum_prices(cart):\n"
        "    return 0\n",
    )
    definitions = [(d.name, d.kind, d.container, d.line) for d in found.definitions]
    assert definitions == [
        ("Cart", "class", "", 0),
        ("total", "method", "Cart", 1),
        ("sum_prices", "function", "", 4),
    ]
    (call,) = found.references()
    assert (call.name, call.kind, call.line, call.column, call.end_column) == (
        "sum_prices",
        "call",
        2,
        15,
        25,
    )
    assert found.definitions[call.enclosing].name == "total"


def test_columns_count_utf16_code_units() -> None:
    found = symbols_of("u.py", "x = '🙂'; y = 1\ndef f():\n    pass\n")
    (function,) = [d for d in found.definitions if d.name == "f"]
    assert (function.line, function.column) == (1, 4)
    found = symbols_of("v.js", "const s = '🙂'; function g() {}\n")
    (g,) = [d for d in found.definitions if d.name == "g"]
    assert g.column == len("const s = '🙂'; function ".encode("utf-16-le")) // 2


def test_prose_and_languages_without_queries_have_no_symbols() -> None:
    assert symbols_of("notes.md", "# Title\n\ndef nothing\n") == FileSymbols()
    assert symbols_of("data.txt", "class A: pass\n") == FileSymbols()


@pytest.mark.parametrize("language", sorted(set(QUERIES) & set(EXPECTED_SYMBOLS)))
def test_every_sample_yields_most_of_the_chunkers_symbols(language: str) -> None:
    name, expected = EXPECTED_SYMBOLS[language]
    found = symbols_of(name, (SAMPLES / name).read_bytes())
    names = {d.name for d in found.definitions}
    wanted = {symbol.rsplit(".", 1)[-1] for symbol, _ in expected}
    assert len(wanted & names) >= 0.8 * len(wanted), sorted(wanted - names)


def test_the_indexer_keeps_symbols_per_file_through_changes(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {"a.py": "def alpha():\n    pass\n", "b.py": "def beta():\n    alpha()\n"},
    )
    indexer = FileIndexer(workers=1)
    knowledge_base = InMemoryKnowledgeBase()
    config = KnowledgeSourceConfig(root)
    indexer.index(config, knowledge_base, None)
    index = indexer.symbols
    assert (index.definition_count, index.reference_count) == (2, 1)
    kept = index.get("b.py")

    (root / "a.py").write_text("def alpha_renamed():\n    pass\n")
    indexer.index(config, knowledge_base, None, changed_paths=[root / "a.py"])
    # b.py's call is an exact match, a reference; the renamed definition a prefix match
    found = [(m.path, m.name, m.definition is None) for m in index.search("alpha", 5)]
    assert found == [("b.py", "alpha", True), ("a.py", "alpha_renamed", False)]
    assert index.get("b.py") is kept  # an unchanged file is not re-read

    (root / "b.py").unlink()
    indexer.index(config, knowledge_base, None)  # a full run sees the deletion
    assert index.paths() == ["a.py"]
    assert (index.definition_count, index.reference_count) == (1, 0)


def test_symbols_come_back_from_worker_processes(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"def function_{i}():\n    pass\n" for i in range(40)}
    root = make_tree(tmp_path, files)
    indexer = FileIndexer(workers=2)
    indexer.index(KnowledgeSourceConfig(root), InMemoryKnowledgeBase(), None)
    assert indexer.symbols.definition_count == 40

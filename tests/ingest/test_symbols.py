"""Symbols per language: realistic samples, the JavaScript forms, grouped clauses (SPEC §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.ingest.chunking.c_macros import without_declaration_macros
from ragls.ingest.chunking.chunker import NormalizedDocumentChunker
from ragls.ingest.chunking.code_chunker import CodeChunker
from ragls.ingest.chunking.grammars import GRAMMARS
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.ingestion import FileIngestionService
from tests.ingest.sample_symbols import EXPECTED_SYMBOLS
from tests.ingest.trees import make_tree

SAMPLES = Path(__file__).parent / "samples"


def chunks(source: str, language: str, max_lines: int = 60) -> list[tuple[str, str, int, int]]:
    """(symbol, kind, first line, last line) of each chunk."""
    chunker = NormalizedDocumentChunker(max_lines=max_lines)
    documents = chunker.chunk(source, file="f", format=DocumentFormat.CODE, language=language)
    return [
        (
            d.metadata.get("symbol", ""),
            d.metadata.get("kind", ""),
            int(d.metadata["start_line"]),
            int(d.metadata["end_line"]),
        )
        for d in documents.documents
    ]


def symbols(source: str, language: str, max_lines: int = 1) -> set[tuple[str, str]]:
    return {(symbol, kind) for symbol, kind, _, _ in chunks(source, language, max_lines) if symbol}


def test_every_grammar_has_a_sample() -> None:
    assert set(EXPECTED_SYMBOLS) == set(GRAMMARS)


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_sample_yields_its_symbols(language: str) -> None:
    file_name, expected = EXPECTED_SYMBOLS[language]
    assert symbols((SAMPLES / file_name).read_text(), language) == expected


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_sample_chunks_cover_every_line_once(language: str) -> None:
    source = (SAMPLES / EXPECTED_SYMBOLS[language][0]).read_text()
    covered = [
        line for _, _, first, last in chunks(source, language) for line in range(first, last + 1)
    ]
    assert covered == sorted(set(covered))
    lines = source.split("\n")
    assert {i + 1 for i, line in enumerate(lines) if line.strip()} <= set(covered)


JAVASCRIPT_FORMS = [
    ("const foo = () => {\n  return 1;\n};\n", {("foo", "function")}),
    ("export const foo = async function () {\n  await x;\n};\n", {("foo", "function")}),
    ("let gen = function* () {\n  yield 1;\n};\n", {("gen", "function")}),
    (
        "const api = {\n  get() {\n    return 1;\n  },\n"
        "  post: function () {\n    return 2;\n  },\n  name: 'api',\n};\n",
        {("api", "object"), ("api.get", "method"), ("api.post", "method")},
    ),
    (
        "class Button {\n  label = 'ok';\n  handle = () => {\n    this.click();\n  };\n}\n",
        {("Button", "class"), ("Button.handle", "method")},
    ),
    ("module.exports.foo = function () {\n  return 1;\n};\n", {("foo", "function")}),
    ("exports.bar = () => {\n  return 2;\n};\n", {("bar", "function")}),
    ("module.exports = {\n  baz() {\n    return 3;\n  },\n};\n", {("baz", "function")}),
    ("Cart.prototype.total = function () {\n  return 0;\n};\n", {("Cart.total", "method")}),
    ("const limit = 5;\nconst config = { retries: 3 };\n", set()),
]


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
@pytest.mark.parametrize(("source", "expected"), JAVASCRIPT_FORMS)
def test_javascript_functions_bound_to_names(
    language: str, source: str, expected: set[tuple[str, str]]
) -> None:
    assert symbols(source, language) == expected


@pytest.mark.parametrize(
    ("language", "source"),
    [
        (
            "python",
            "@dataclass\nclass Cache:\n    size: int = 0\n\n"
            "    @property\n    def empty(self):\n        return not self.size\n\n"
            "    def lookup(self, key):\n        return key\n",
        ),
        (
            "typescript",
            "@Injectable()\nexport class Cache {\n  size = 0;\n"
            "  empty(): boolean {\n    return !this.size;\n  }\n"
            "  lookup(key: string): string {\n    return key;\n  }\n}\n",
        ),
    ],
)
def test_methods_of_decorated_classes_are_qualified_once(language: str, source: str) -> None:
    named = {symbol for symbol, _ in symbols(source, language)}
    assert {"Cache", "Cache.empty", "Cache.lookup"} <= named
    assert not any(symbol.startswith("Cache.Cache") for symbol in named), named


def test_typescript_class_fields_and_abstract_methods() -> None:
    source = (
        "abstract class Shape {\n  abstract area(): number;\n"
        "  describe = (): string => `area ${this.area()}`;\n  sides: number = 0;\n}\n"
    )
    assert symbols(source, "typescript") == {
        ("Shape", "class"),
        ("Shape.area", "method"),
        ("Shape.describe", "method"),
    }


def test_haskell_signature_and_equations_are_one_unit() -> None:
    source = (SAMPLES / "sample.hs").read_text()
    [(first, last)] = [(a, b) for symbol, _, a, b in chunks(source, "haskell") if symbol == "eval"]
    assert first == 37 and last >= 42  # the signature and its four equations


def test_elixir_clauses_are_one_unit() -> None:
    source = (SAMPLES / "sample.ex").read_text()
    [(first, last)] = [
        (a, b) for symbol, _, a, b in chunks(source, "elixir", 20) if symbol == "Shop.Cart.add"
    ]
    assert first == 26 and last >= 32  # the head and its two clauses


def test_clauses_of_different_functions_stay_apart() -> None:
    source = "f :: Int\nf = 1\ng :: Int\ng = 2\n"
    assert [(s, first, last) for s, _, first, last in chunks(source, "haskell", 2)] == [
        ("f", 1, 2),
        ("g", 3, 4),
    ]


def test_dart_signature_and_body_are_one_unit() -> None:
    source = (SAMPLES / "sample.dart").read_text()
    [(first, last)] = [
        (a, b)
        for symbol, _, a, b in chunks(source, "dart", 20)
        if symbol == "MemoryRepository.save"
    ]
    assert first == 48 and last >= 52  # the signature and the body


def test_indented_blocks_do_not_take_the_next_declaration_line() -> None:
    source = 'enum Color:\n  case Red, Green\n\n  def hex: String = "#f00"\n\ntrait Paint\n'
    assert [(s, first, last) for s, _, first, last in chunks(source, "scala")] == [
        ("Color", 1, 4),
        ("Paint", 6, 6),
    ]


def test_lua_module_functions_and_methods() -> None:
    source = (
        "local M = {}\n\nfunction M.open(path)\n  return io.open(path)\nend\n\n"
        "function M.Reader:close()\n  self.file:close()\nend\n\n"
        "M.size = function(file)\n  return file:seek('end')\nend\n\n"
        "local function helper()\n  return 1\nend\n\nreturn M\n"
    )
    assert symbols(source, "lua") == {
        ("M.open", "function"),
        ("M.Reader.close", "method"),
        ("M.size", "function"),
        ("helper", "function"),
    }


def test_test_blocks_are_named_by_their_title() -> None:
    lua = 'describe("parser", function()\n  it("reads numbers", function()\n  end)\nend)\n'
    assert symbols(lua, "lua") == {("parser", "describe"), ("parser.reads numbers", "test")}
    julia = '@testset "parser" begin\n    @test parse("1") == 1\nend\n'
    assert symbols(julia, "julia") == {("parser", "test")}
    ocaml = 'let%expect_test "parser" =\n  print_endline "1";\n  [%expect {| 1 |}]\n'
    assert symbols(ocaml, "ocaml") == {("parser", "test")}


def test_rust_items_inside_macro_calls_are_symbols_on_their_own_lines() -> None:
    """Tokio declares much of its API inside ``cfg_*! { ... }`` calls, which the grammar leaves
    as token trees: their items are parsed where they stand."""
    source = (
        "pub struct Builder;\n"
        "cfg_rt! {\n"
        "    impl Builder {\n"
        "        pub fn build(&self) -> u8 {\n"
        "            1\n"
        "        }\n"
        "\n"
        "        cfg_unstable! {\n"
        "            pub fn seed(&mut self) {}\n"
        "        }\n"
        "    }\n"
        "}\n"
        "let_me!(not, an, item);\n"
    )
    found = chunks(source, "rust", max_lines=3)
    assert ("Builder.build", "method", 4, 6) in found
    assert {symbol for symbol, *_ in found} >= {"Builder", "Builder.build", "Builder.seed"}
    assert next(last for symbol, _, _, last in found if symbol == "Builder.seed") == 9


def test_cpp_declarations_behind_export_and_inline_macros_are_symbols() -> None:
    """``class SPDLOG_API logger`` read as a function named ``logger`` and everything after it
    as errors; the file is parsed again without such macros, and only where they stand as
    declaration macros (a macro call, a value and a directive keep theirs)."""
    source = (
        '#define SPDLOG_API __attribute__((visibility("default")))\n'
        "namespace spdlog {\n"
        "class SPDLOG_API logger {\n"
        "public:\n"
        "    void log(int level) SPDLOG_NOEXCEPT {\n"
        "        SPDLOG_TRY_CALL(sink(level));\n"
        "    }\n"
        "    int level() const { return SPDLOG_LEVEL_INFO; }\n"
        "};\n"
        "SPDLOG_INLINE void flush_all(logger &l) {\n"
        "    l.log(0);\n"
        "}\n"
        "}\n"
    )
    assert symbols(source, "cpp") >= {
        ("spdlog.logger", "class"),
        ("spdlog.logger.log", "method"),
        ("spdlog.logger.level", "method"),
        ("spdlog.flush_all", "function"),
    }
    blanked = without_declaration_macros(source.encode())
    assert len(blanked) == len(source.encode())
    assert b"class            logger" in blanked and b"SPDLOG_TRY_CALL(" in blanked
    assert b"return SPDLOG_LEVEL_INFO;" in blanked and blanked.startswith(b"#define SPDLOG_API")
    assert b"     void flush_all" in blanked


def test_nameless_definitions_are_searched_inside() -> None:
    source = "export default class {\n  render() {\n    return 1;\n  }\n}\n"
    assert symbols(source, "javascript") == {("render", "method")}


@pytest.mark.parametrize(
    ("language", "path"), [("kotlin", "app/Order.kt"), ("elixir", "lib/cart.ex")]
)
def test_code_chunker_matches_file_ingest(tmp_path: Path, language: str, path: str) -> None:
    sample = SAMPLES / EXPECTED_SYMBOLS[language][0]
    make_tree(tmp_path, {path: sample.read_text() * 2})
    service = FileIngestionService()
    config = KnowledgeSourceConfig(tmp_path)
    [candidate] = service.discover(config).candidates
    data = service.read(config, candidate)
    ingested = service.ingest(
        config, candidate.path, data, service.detect(config, candidate.path, data)
    )
    alone = CodeChunker().chunk(tmp_path / path, root=tmp_path)
    assert alone == ingested.documents
    assert {d.metadata["language"] for d in alone} == {language}
    assert any(d.metadata.get("symbol") for d in alone)

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


def definitions_of(name: str, content: str) -> list[tuple[str, str, str, int]]:
    return [(d.name, d.kind, d.container, d.line) for d in symbols_of(name, content).definitions]


def test_cpp_specialisations_export_macro_classes_and_pointer_typedefs() -> None:
    found = definitions_of(
        "fmt.h",
        "namespace fmt {\n"
        "template <> struct formatter<point> : formatter<int> {\n"
        "  int x;\n"
        "};\n"
        "class FMT_API format_error {\n"
        " public:\n"
        "  int code;\n"
        "};\n"
        "typedef void (*handler)(int);\n"
        "typedef const char& char_ref;\n"
        "void print(int);\n"
        "}\n",
    )
    assert ("formatter", "struct", "fmt", 1) in found
    assert ("format_error", "class", "fmt", 4) in found
    assert ("handler", "type", "fmt", 8) in found
    assert ("char_ref", "type", "fmt", 9) in found
    # a prototype is one definition (its declaration and its declarator are the same name)
    assert [d for d in found if d[0] == "print"] == [("print", "function", "fmt", 10)]


def test_a_c_header_stays_c_and_its_pointer_typedefs_are_types() -> None:
    found = definitions_of("jv.h", "typedef struct jv_state *jv_state_ref;\nint jv_get(int);\n")
    assert found == [("jv_state_ref", "type", "", 0), ("jv_get", "function", "", 1)]


def test_haskell_modules_types_constructors_fields_and_equations() -> None:
    found = symbols_of(
        "App.hs",
        "module PostgREST.App (run) where\n"
        "data Shape = Circle Double | Rect { width :: Double }\n"
        "class Monad m => MonadLog m where\n"
        "  logMsg :: String -> m ()\n"
        "area :: Shape -> Double\n"
        "area (Circle r) = r * r\n"
        "area r = width r\n"
        "run = print (area (Circle 1))\n",
    )
    definitions = [(d.name, d.kind, d.container, d.line) for d in found.definitions]
    assert definitions == [
        ("PostgREST.App", "module", "", 0),
        ("Shape", "type", "", 1),
        ("Circle", "constructor", "Shape", 1),
        ("Rect", "constructor", "Shape", 1),
        ("width", "field", "Shape.Rect", 1),
        ("MonadLog", "interface", "", 2),
        ("logMsg", "method", "MonadLog", 3),
        ("area", "function", "", 4),  # its signature and two equations are one definition
        ("run", "function", "", 7),
    ]
    area = found.definitions[7]
    assert (area.line, area.end_line) == (4, 6)
    calls = {(r.name, found.definitions[r.enclosing].name) for r in found.references()}
    assert ("area", "run") in calls


def test_julia_modules_types_functions_and_short_forms() -> None:
    found = symbols_of(
        "HTTP.jl",
        "module HTTP\n"
        "abstract type AbstractReq end\n"
        "mutable struct Request{T} <: AbstractReq\n"
        "    x::T\n"
        "end\n"
        "function request(x::Int)::Int where {T}\n"
        "    helper(x)\n"
        "end\n"
        "Base.show(io::IO, r::Request) = print(io, r.x)\n"
        "helper(x) = x\n"
        "macro check(ex) end\n"
        "end\n",
    )
    definitions = [(d.name, d.kind, d.container, d.line) for d in found.definitions]
    assert definitions == [
        ("HTTP", "module", "", 0),
        ("AbstractReq", "type", "HTTP", 1),
        ("Request", "struct", "HTTP", 2),
        ("request", "function", "HTTP", 5),
        ("show", "function", "HTTP", 8),
        ("helper", "function", "HTTP", 9),
        ("check", "macro", "HTTP", 10),
    ]
    # a definition's own name (a signature reads as a call) is not a reference
    assert [(r.name, r.line) for r in found.references() if r.name == "helper"] == [("helper", 6)]


def test_zig_containers_their_methods_and_fields() -> None:
    found = definitions_of(
        "server.zig",
        'const std = @import("std");\n'
        "pub const Server = struct {\n"
        "    count: u32,\n"
        "    pub fn init(a: u32) Server {\n"
        "        return .{ .count = a };\n"
        "    }\n"
        "};\n"
        "const Kind = enum { a, b };\n"
        "pub const Error = error{Bad};\n"
        "fn helper() void {\n"
        "    var local: union(enum) { a: u8 } = .{ .a = 1 };\n"
        "}\n",
    )
    assert found == [
        ("std", "constant", "", 0),
        ("Server", "struct", "", 1),
        ("count", "field", "Server", 2),
        ("init", "method", "Server", 3),
        ("Kind", "enum", "", 7),
        ("a", "field", "Kind", 7),
        ("b", "field", "Kind", 7),
        ("Error", "type", "", 8),
        ("helper", "function", "", 9),
    ]


def test_elixir_type_specs_and_callbacks() -> None:
    found = definitions_of(
        "conn.ex",
        "defmodule Plug.Conn do\n"
        "  @type adapter :: {module, term}\n"
        "  @opaque secret(x) :: x\n"
        "  @callback call(conn :: t, opts) :: t when opts: term\n"
        "  def init(x), do: x\n"
        "  def call(conn, :a), do: conn\n"
        "  def call(conn, _) do\n"
        "    conn\n"
        "  end\n"
        "end\n",
    )
    assert found == [
        ("Plug.Conn", "module", "", 0),
        ("adapter", "type", "Plug.Conn", 1),
        ("secret", "type", "Plug.Conn", 2),
        ("call", "function", "Plug.Conn", 3),
        ("init", "function", "Plug.Conn", 4),
        ("call", "function", "Plug.Conn", 5),  # two clauses, one definition (lines 5 to 8)
    ]


def test_zsh_functions_the_bash_grammar_cannot_read_come_from_the_line_pattern() -> None:
    found = definitions_of(
        "completion.zsh",
        "__fzf_comprun() {\n"
        "  echo ${(q)1}\n"
        "}\n"
        "if [[ -o interactive ]]; then\n"
        '  for x in ${(s: :)"$(echo a b)"}; do print "$x; done\n'
        "fi\n"
        "_fzf_complete() {\n"
        "  local args\n"
        "}\n"
        "function fzf-history-widget {\n"
        "  zle reset-prompt\n"
        "}\n",
    )
    names = {(name, line) for name, _, _, line in found}
    assert {("__fzf_comprun", 0), ("_fzf_complete", 6), ("fzf-history-widget", 9)} <= names
    assert all(kind == "function" for _, kind, _, _ in found)
    # a shell file the grammar reads has no extra definitions from the pattern
    assert definitions_of("ok.sh", "f() {\n  g\n}\n") == [("f", "function", "", 0)]


def test_cpp_conversion_operators_are_named_operator_type() -> None:
    found = definitions_of(
        "matcher.cc",
        "class Matcher {\n"
        " public:\n"
        "  operator bool() const { return ok; }\n"
        "  template <typename T> operator Holder<T>() const;\n"
        "};\n",
    )
    assert found == [
        ("Matcher", "class", "", 0),
        ("operator bool", "method", "Matcher", 2),
        ("operator Holder<T>", "method", "Matcher", 3),
    ]


def test_kotlin_unnamed_companion_objects_are_companion() -> None:
    found = definitions_of(
        "Registry.kt",
        "class Registry {\n"
        "    companion object {\n"
        "        fun create(): Registry = Registry()\n"
        "    }\n"
        "}\n",
    )
    assert found == [
        ("Registry", "class", "", 0),
        ("Companion", "object", "Registry", 1),
        ("create", "method", "Registry.Companion", 2),
    ]


def test_swift_members_are_contained_by_their_type_not_by_each_other() -> None:
    found = symbols_of(
        "Session.swift",
        "public protocol Adapter {\n"
        "    func adapt(_ request: Request) throws -> Request\n"
        "}\n"
        "open class Session {\n"
        "    public let id: Int\n"
        "    init(id: Int) { self.id = id }\n"
        "    func request() -> Request { return make() }\n"
        "    private func make() -> Request { Request() }\n"
        "}\n"
        "enum Method: String { case get, post }\n"
        "extension Session { func extra() {} }\n"
        "typealias Handler = (Int) -> Void\n",
    )
    definitions = [(d.name, d.kind, d.container, d.line) for d in found.definitions]
    assert definitions == [
        ("Adapter", "interface", "", 0),
        ("adapt", "method", "Adapter", 1),
        ("Session", "class", "", 3),
        ("id", "property", "Session", 4),
        ("init", "method", "Session", 5),
        ("request", "method", "Session", 6),
        ("make", "method", "Session", 7),
        ("Method", "enum", "", 9),
        ("get", "enum_variant", "Method", 9),
        ("post", "enum_variant", "Method", 9),
        ("Session", "extension", "", 10),
        ("extra", "method", "Session", 10),
        ("Handler", "type", "", 11),
    ]
    (call,) = [r for r in found.references() if r.name == "make"]
    assert found.definitions[call.enclosing].name == "request"


def test_scala_abstract_members_and_type_members() -> None:
    found = definitions_of(
        "Path.scala",
        "trait PathChunk {\n"
        "  def segments: Seq[String]\n"
        "  type Self <: PathChunk\n"
        "  def ups: Int = 0\n"
        "}\n",
    )
    assert found == [
        ("PathChunk", "interface", "", 0),
        ("segments", "method", "PathChunk", 1),
        ("Self", "type", "PathChunk", 2),
        ("ups", "method", "PathChunk", 3),
    ]


def test_dart_extension_types_and_getters_without_bodies() -> None:
    found = definitions_of(
        "bindings.dart",
        "Uri get dummyUrl => Uri.http('dart.dev', '');\n"
        "extension type UrlRequest._(JObject _this) implements JObject {\n"
        "  void start() {}\n"
        "}\n"
        "abstract class Channel {\n"
        "  String get protocol;\n"
        "  set onClose(void Function(int?) value);\n"
        "}\n",
    )
    assert found == [
        ("dummyUrl", "function", "", 0),
        ("UrlRequest", "class", "", 1),
        ("start", "method", "UrlRequest", 2),
        ("Channel", "class", "", 4),
        ("protocol", "method", "Channel", 5),
        ("onClose", "method", "Channel", 6),
    ]


def test_cpp_methods_defined_with_deeply_qualified_names() -> None:
    found = definitions_of(
        "sink-inl.h",
        "#include <atomic>\n"
        "bool spdlog::sinks::sink::should_log(int level) const {\n"
        "  return level > 0;\n"
        "}\n"
        "void a::b::c::d::reset() {}\n",
    )
    assert found == [("should_log", "method", "", 1), ("reset", "method", "", 4)]


def test_rust_items_inside_macro_calls_are_definitions_and_their_calls_references() -> None:
    """Tokio declares much of its API inside ``cfg_*! { ... }`` calls, token trees to the
    grammar: they are parsed where they stand, as the chunker parses them, so the symbol index
    holds what the chunks are named after, at the file's own lines and columns."""
    source = (
        "pub struct Builder;\n"
        "cfg_rt! {\n"
        "    impl Builder {\n"
        "        pub fn build(&self) -> u8 {\n"
        "            helper()\n"
        "        }\n"
        "        cfg_unstable! {\n"
        "            pub fn seed(&mut self) {}\n"
        "        }\n"
        "    }\n"
        "}\n"
        "fn helper() -> u8 { 1 }\n"
    )
    found = symbols_of("builder.rs", source)
    placed = {d.name: (d.line, d.column) for d in found.definitions}
    assert placed["build"] == (3, 15)
    assert placed["seed"] == (7, 19)
    assert placed["helper"] == (11, 3)
    call = next(r for r in found.references() if r.name == "helper")
    assert (call.line, call.column) == (4, 12)
    assert found.definitions[call.enclosing].name == "build"

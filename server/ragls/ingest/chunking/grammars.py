"""Which tree-sitter grammar parses which language, and which node types are symbols. Data only.

Grammars come from the individual ``tree-sitter-LANGUAGE`` wheels, loaded on first use (SPEC §8).
For each language a :class:`Grammar` says:

* ``kinds``: node type -> the kind reported in chunk metadata; the name is the node's ``name``
  field (or the fields ``name_fields`` gives, or C's declarator chain).
* ``rules``: node type -> a rule of ``ragls.ingest.chunking.symbol_rules`` that decides, from
  the node itself, whether it is a symbol, its kind and its name, where a field cannot say
  (``const foo = () => {}``, Elixir's ``def`` calls, Lua's ``M.foo = function``...).
* ``wrappers``: nodes whose span (decorators, ``export``, ``local``) belongs to the symbol
  inside them.
* ``containers``: kinds whose nested symbols are qualified with the container's name
  (``Class.method``) and whose functions are reported as methods (not a module's or a
  namespace's).
* ``merge_clauses``: adjacent symbols of one name and kind are one unit (a Haskell signature
  and its equations, an Elixir function's clauses).

A node without a name is not a symbol: its insides are searched instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# The node types of the first twelve grammars (their types do not clash with one another).
SYMBOL_KINDS: Mapping[str, str] = MappingProxyType(
    {
        # classes and other containers
        "class_declaration": "class",
        "abstract_class_declaration": "class",
        "class_definition": "class",
        "class_specifier": "class",
        "class": "class",
        "interface_declaration": "interface",
        "annotation_type_declaration": "annotation",  # Java's @interface
        "trait_declaration": "trait",
        "trait_item": "trait",
        "struct_item": "struct",
        "struct_specifier": "struct",
        "struct_declaration": "struct",
        "enum_declaration": "enum",
        "enum_item": "enum",
        "enum_specifier": "enum",
        "union_specifier": "union",
        "record_declaration": "class",
        "impl_item": "impl",
        "mod_item": "module",
        "module": "module",
        "namespace_definition": "namespace",
        "namespace_declaration": "namespace",
        "internal_module": "namespace",
        "type_declaration": "type",
        "type_alias_declaration": "type",
        "type_definition": "type",
        # functions
        "function_definition": "function",
        "function_declaration": "function",
        "generator_function_declaration": "function",
        "function_item": "function",
        "method_declaration": "method",
        "method_signature": "method",
        "abstract_method_signature": "method",
        "constructor_declaration": "method",
        "method": "method",
        "singleton_method": "method",
        # macros
        "macro_definition": "macro",  # Rust's macro_rules!
    }
)

CONTAINER_KINDS: frozenset[str] = frozenset(
    (
        "actor",
        "annotation",
        "class",
        "describe",
        "enum",
        "extension",
        "impl",
        "instance",
        "interface",
        "mixin",
        "module",
        "namespace",
        "object",
        "protocol",
        "struct",
        "test",
        "trait",
        "union",
    )
)

# Containers whose functions stay functions (a module's are not methods).
FUNCTION_CONTAINERS: frozenset[str] = frozenset(("describe", "module", "namespace", "test"))

WRAPPER_TYPES: frozenset[str] = frozenset(("decorated_definition", "export_statement"))

# Node types that hold a symbol's name when the grammar has no "name" field on the symbol.
NAME_TYPES: frozenset[str] = frozenset(
    (
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "constant",
        "word",
        "name",
        "property_identifier",
        # OCaml's name nodes
        "class_name",
        "method_name",
        "module_name",
        "module_type_name",
        "type_constructor",
        "value_name",
    )
)

# A keyword or modifier on a declaration that says more than its node type (Kotlin's
# ``interface``/``enum class``, Swift's ``struct``/``extension``/``actor``).
KEYWORD_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "actor": "actor",
        "class": "class",
        "enum": "enum",
        "extension": "extension",
        "interface": "interface",
        "struct": "struct",
    }
)

# Elixir's definitions are macro calls: the called name -> the kind of what it defines.
ELIXIR_DEFINITIONS: Mapping[str, str] = MappingProxyType(
    {
        "def": "function",
        "defdelegate": "function",
        "defguard": "function",
        "defguardp": "function",
        "defimpl": "impl",
        "defmacro": "macro",
        "defmacrop": "macro",
        "defmodule": "module",
        "defp": "function",
        "defprotocol": "protocol",
        "describe": "describe",
        "test": "test",
    }
)

# Test blocks named by a string: busted's ``describe("...", function() ... end)`` in Lua,
# Julia's ``@testset "..." begin ... end``.
TEST_CALLS: Mapping[str, str] = MappingProxyType(
    {"describe": "describe", "it": "test", "test": "test", "testset": "test"}
)

# Zig's containers are values bound to a name: ``const Point = struct { ... };``.
ZIG_CONTAINERS: Mapping[str, str] = MappingProxyType(
    {
        "enum_declaration": "enum",
        "opaque_declaration": "type",
        "struct_declaration": "struct",
        "union_declaration": "union",
    }
)

# JavaScript values that make the name they are bound to a function.
JS_FUNCTION_VALUES: frozenset[str] = frozenset(
    ("arrow_function", "function", "function_expression", "generator_function")
)

# CommonJS export objects, left out of the names of what is assigned to them.
JS_EXPORT_PATHS: tuple[str, ...] = ("module.exports", "exports")


@dataclass(frozen=True, slots=True)
class Grammar:
    """How one language's parse becomes symbols (see the module docstring)."""

    module: str
    function: str = "language"
    kinds: Mapping[str, str] = field(default_factory=lambda: SYMBOL_KINDS)
    rules: Mapping[str, str] = field(default_factory=dict)
    name_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    wrappers: frozenset[str] = WRAPPER_TYPES
    containers: frozenset[str] = CONTAINER_KINDS
    merge_clauses: bool = False
    # Macro calls whose brace-delimited body (the node type given) holds items the grammar
    # leaves unparsed (Rust's ``cfg_io! { impl Builder { ... } }``): the body is parsed again
    # on its own, where it stands, for the symbols inside.
    macro_bodies: Mapping[str, str] = field(default_factory=dict)


_JS_RULES: Mapping[str, str] = MappingProxyType(
    {
        "assignment_expression": "js_assignment",
        "field_definition": "js_field",
        "lexical_declaration": "js_declaration",
        "method_definition": "js_method",
        "pair": "js_pair",
        "public_field_definition": "js_field",
        "variable_declaration": "js_declaration",
    }
)

GRAMMARS: Mapping[str, Grammar] = MappingProxyType(
    {
        "bash": Grammar("tree_sitter_bash"),
        "c": Grammar("tree_sitter_c"),
        "cpp": Grammar("tree_sitter_cpp"),
        "csharp": Grammar(
            "tree_sitter_c_sharp",
            kinds={
                **SYMBOL_KINDS,
                "conversion_operator_declaration": "method",
                "destructor_declaration": "method",
                "indexer_declaration": "method",
                "operator_declaration": "method",
            },
            rules={
                "conversion_operator_declaration": "csharp_operator",
                "destructor_declaration": "csharp_operator",
                "indexer_declaration": "csharp_operator",
                "operator_declaration": "csharp_operator",
            },
        ),
        "dart": Grammar(
            "tree_sitter_dart",
            kinds={
                "class_definition": "class",
                "enum_declaration": "enum",
                "extension_declaration": "extension",
                "mixin_declaration": "mixin",
                "type_alias": "type",
            },
            rules={
                "declaration": "dart_declaration",
                "function_signature": "dart_signature",
                "getter_signature": "dart_signature",
                "method_signature": "dart_signature",
                "mixin_declaration": "first_name",
                "setter_signature": "dart_signature",
                "type_alias": "first_name",
            },
            name_fields={"extension_declaration": ("name", "class")},
        ),
        "elixir": Grammar(
            "tree_sitter_elixir", kinds={}, rules={"call": "elixir_call"}, merge_clauses=True
        ),
        "go": Grammar("tree_sitter_go", rules={"method_declaration": "go_method"}),
        "haskell": Grammar(
            "tree_sitter_haskell",
            kinds={
                "bind": "function",
                "class": "class",
                "data_type": "type",
                "function": "function",
                "newtype": "type",
                "signature": "function",
                "type_family": "type",
                "type_synonym": "type",
            },
            rules={"instance": "haskell_instance"},
            merge_clauses=True,
        ),
        "java": Grammar("tree_sitter_java"),
        "javascript": Grammar("tree_sitter_javascript", rules=_JS_RULES),
        "julia": Grammar(
            "tree_sitter_julia",
            kinds={
                "abstract_definition": "type",
                "function_definition": "function",
                "macro_definition": "macro",
                "module_definition": "module",
                "struct_definition": "struct",
            },
            rules={
                "abstract_definition": "julia_type",
                "assignment": "julia_short_function",
                "function_definition": "julia_function",
                "macro_definition": "julia_function",
                "macrocall_expression": "julia_test",
                "struct_definition": "julia_type",
            },
        ),
        "kotlin": Grammar(
            "tree_sitter_kotlin",
            kinds={
                "class_declaration": "class",
                "companion_object": "object",
                "function_declaration": "function",
                "object_declaration": "object",
                "secondary_constructor": "function",
                "type_alias": "type",
            },
            rules={
                "class_declaration": "keyword_kind",
                "companion_object": "kotlin_companion",
                "function_declaration": "kotlin_function",
                "secondary_constructor": "keyword_name",
            },
            name_fields={"type_alias": ("type",)},
        ),
        "lua": Grammar(
            "tree_sitter_lua",
            kinds={},
            rules={
                "assignment_statement": "lua_assignment",
                "field": "lua_field",
                "function_call": "lua_test",
                "function_declaration": "lua_function",
            },
            wrappers=frozenset(("variable_declaration",)),
        ),
        "ocaml": Grammar(
            "tree_sitter_ocaml",
            "language_ocaml",
            kinds={
                "class_definition": "class",
                "method_definition": "method",
                "module_definition": "module",
                "module_type_definition": "interface",
                "type_definition": "type",
                "value_specification": "value",
            },
            rules={
                "class_definition": "first_name",
                "let_binding": "ocaml_let",
                "method_definition": "first_name",
                "module_definition": "first_name",
                "module_type_definition": "first_name",
                "type_definition": "first_name",
                "value_specification": "first_name",
            },
        ),
        "php": Grammar("tree_sitter_php", "language_php"),
        "python": Grammar("tree_sitter_python"),
        "ruby": Grammar("tree_sitter_ruby"),
        "rust": Grammar(
            "tree_sitter_rust",
            name_fields={"impl_item": ("name", "type")},
            macro_bodies={"macro_invocation": "token_tree"},
        ),
        "scala": Grammar(
            "tree_sitter_scala",
            kinds={
                "class_definition": "class",
                "enum_definition": "enum",
                "function_declaration": "function",
                "function_definition": "function",
                "given_definition": "instance",
                "object_definition": "object",
                "trait_definition": "trait",
                "type_definition": "type",
            },
            rules={"extension_definition": "scala_extension"},
            name_fields={"given_definition": ("name", "return_type")},
        ),
        "swift": Grammar(
            "tree_sitter_swift",
            kinds={
                "class_declaration": "class",
                "deinit_declaration": "function",
                "function_declaration": "function",
                "init_declaration": "function",
                "protocol_declaration": "protocol",
                "protocol_function_declaration": "function",
                "subscript_declaration": "function",
                "typealias_declaration": "type",
            },
            rules={
                "class_declaration": "keyword_kind",
                "deinit_declaration": "keyword_name",
                "subscript_declaration": "keyword_name",
            },
        ),
        "tsx": Grammar("tree_sitter_typescript", "language_tsx", rules=_JS_RULES),
        "typescript": Grammar("tree_sitter_typescript", "language_typescript", rules=_JS_RULES),
        "zig": Grammar(
            "tree_sitter_zig",
            kinds={"function_declaration": "function", "test_declaration": "test"},
            rules={"test_declaration": "string_name", "variable_declaration": "zig_container"},
            # ``fn List(comptime T: type) type { return struct { ... }; }`` defines a type
            containers=CONTAINER_KINDS | {"function"},
        ),
    }
)

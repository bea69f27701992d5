"""Symbols that a node type and a name field cannot describe (SPEC §8, chunking).

Each rule looks at one node (and at most its children and parent: no rule walks a subtree, so
the walk stays linear in the file) and answers a :class:`Found` or None when the node is not a
symbol. ``grammars.Grammar.rules`` says which rule a language applies to which node type; the
rule gets the kind that ``Grammar.kinds`` gives the node type ("" if none) as its default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from tree_sitter import Node

from ragls.ingest.chunking.grammars import (
    ELIXIR_DEFINITIONS,
    JS_EXPORT_PATHS,
    JS_FUNCTION_VALUES,
    KEYWORD_KINDS,
    NAME_TYPES,
    TEST_CALLS,
    ZIG_CONTAINERS,
)


@dataclass(frozen=True, slots=True)
class Found:
    """A symbol: ``node`` is its span (through ``last`` if given, a later sibling such as Dart's
    function body), ``body`` the node whose insides hold its nested symbols."""

    node: Node
    kind: str
    name: str
    body: Node
    last: Node | None = None


Rule = Callable[[Node, str], "Found | None"]


def text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _found(node: Node, kind: str, name: str, last: Node | None = None) -> Found | None:
    return Found(node, kind, name, node, last) if name and kind else None


def _name_child(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type in NAME_TYPES), None)


# -- generic ---------------------------------------------------------------------------------


def first_name(node: Node, kind: str) -> Found | None:
    """Named by its first name-like child, or that of its first ``*_binding`` child (OCaml's
    ``module M = ...``, ``type t = ...``; Dart's ``mixin M``)."""
    name = _name_child(node)
    if name is None:
        binding = next((c for c in node.named_children if c.type.endswith("_binding")), None)
        if binding is not None:
            name = binding.child_by_field_name("name") or _name_child(binding)
    return _found(node, kind, text(name))


def keyword_kind(node: Node, kind: str) -> Found | None:
    """The kind is the first modifier or keyword that names one (``enum class``, ``struct``)."""
    words = [text(m) for c in node.named_children if c.type == "modifiers" for m in c.children]
    words += [c.type for c in node.children if not c.is_named]
    kind = next((KEYWORD_KINDS[w] for w in words if w in KEYWORD_KINDS), kind)
    return _found(node, kind, text(node.child_by_field_name("name")))


def keyword_name(node: Node, kind: str) -> Found | None:
    """Named by its keyword (Swift's ``deinit``, ``subscript``; Kotlin's ``constructor``)."""
    return _found(node, kind, next((c.type for c in node.children if not c.is_named), ""))


def string_name(node: Node, kind: str) -> Found | None:
    """Named by its string or identifier (Zig's ``test "name" { ... }``)."""
    for child in node.named_children:
        if child.type == "string":
            return _found(node, kind, text(child).strip("\"'"))
        if child.type in NAME_TYPES:
            return _found(node, kind, text(child))
    return None


# -- C# --------------------------------------------------------------------------------------


CSHARP_NAMED_MEMBERS = frozenset(
    (
        "conversion_operator_declaration",
        "destructor_declaration",
        "indexer_declaration",
        "operator_declaration",
    )
)


def csharp_member_name(node: Node) -> str:
    """The name of a C# member of :data:`CSHARP_NAMED_MEMBERS`, by what it is: ``operator +``,
    ``operator decimal`` (a conversion), ``this[]`` (an indexer), ``~Order`` (a finalizer); the
    chunks and the symbol index (``ragls.ingest.tags.extract``) both name them so."""
    if node.type == "indexer_declaration":
        return "this[]"
    if node.type == "destructor_declaration":
        name = text(node.child_by_field_name("name"))
        return "~" + name if name else ""
    field = "operator" if node.type == "operator_declaration" else "type"
    operator = text(node.child_by_field_name(field))
    return "operator " + operator if operator else ""


def csharp_operator(node: Node, kind: str) -> Found | None:
    """A C# member named by :func:`csharp_member_name`."""
    return _found(node, kind, csharp_member_name(node))


# -- JavaScript and TypeScript -------------------------------------------------------------


def _js_value_kind(value: Node | None) -> str:
    """ "function" for a function value, "object" for an object literal holding functions."""
    if value is None:
        return ""
    if value.type in JS_FUNCTION_VALUES:
        return "function"
    if value.type == "object" and any(
        c.type == "method_definition"
        or (c.type == "pair" and _js_value_kind(c.child_by_field_name("value")) == "function")
        for c in value.named_children
    ):
        return "object"
    return ""


def js_declaration(node: Node, kind: str) -> Found | None:
    """``const foo = () => {}``, ``let bar = function () {}``, ``const api = { get() {} }``."""
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    name = declarators[0].child_by_field_name("name")
    if name is None or name.type != "identifier":
        return None
    return _found(node, _js_value_kind(declarators[0].child_by_field_name("value")), text(name))


def js_assignment(node: Node, kind: str) -> Found | None:
    """``exports.foo = function``, ``module.exports.bar = () => {}``, ``Foo.prototype.run =
    function`` (``Foo.run``, a method); ``module.exports = { baz() {} }`` is searched inside."""
    left = node.child_by_field_name("left")
    if left is None or left.type not in ("identifier", "member_expression"):
        return None
    path = text(left)
    for export in JS_EXPORT_PATHS:
        if path == export:
            return None
        if path.startswith(export + "."):
            path = path[len(export) + 1 :]
            break
    value_kind = _js_value_kind(node.child_by_field_name("right"))
    if ".prototype." in path:
        path = path.replace(".prototype.", ".")
        value_kind = "method" if value_kind == "function" else value_kind
    return _found(node, value_kind, path)


def js_pair(node: Node, kind: str) -> Found | None:
    """``post: function () {}`` in an object literal."""
    value_kind = _js_value_kind(node.child_by_field_name("value"))
    return _found(node, value_kind, text(node.child_by_field_name("key")).strip("\"'"))


def js_method(node: Node, kind: str) -> Found | None:
    """A method of a class; in an object literal a function (a method of its container)."""
    in_object = node.parent is not None and node.parent.type == "object"
    name = text(node.child_by_field_name("name"))
    return _found(node, "function" if in_object else "method", name)


def js_field(node: Node, kind: str) -> Found | None:
    """A class field holding a function: ``handle = () => {}``."""
    name = node.child_by_field_name("property") or node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    return _found(node, "method" if _js_value_kind(value) == "function" else "", text(name))


# -- Go, Kotlin, Scala -------------------------------------------------------------------------


def go_method(node: Node, kind: str) -> Found | None:
    """``func (c *Cache[K]) Get(...)`` is named ``Cache.Get``."""
    receiver = node.child_by_field_name("receiver")
    parameter = receiver.named_children[0] if receiver and receiver.named_children else None
    receiver_type = parameter.child_by_field_name("type") if parameter is not None else None
    while receiver_type is not None and receiver_type.type in ("pointer_type", "generic_type"):
        if receiver_type.type == "generic_type":
            receiver_type = receiver_type.child_by_field_name("type")
        else:
            receiver_type = next(iter(receiver_type.named_children), None)
    name = text(node.child_by_field_name("name"))
    owner = text(receiver_type)
    return _found(node, "method", f"{owner}.{name}" if owner and name else name)


def kotlin_function(node: Node, kind: str) -> Found | None:
    """``fun Order.total()`` is named ``Order.total`` (its receiver type first)."""
    name = node.child_by_field_name("name")
    if name is None:
        return None
    receiver = ""
    previous: Node | None = None
    for child in node.children:
        if child == name:
            break
        if not child.is_named and child.type == "." and previous is not None:
            receiver = text(previous) + "."
        if child.is_named:
            previous = child
    return _found(node, kind, receiver + text(name))


def kotlin_companion(node: Node, kind: str) -> Found | None:
    return _found(node, kind, text(node.child_by_field_name("name")) or "Companion")


def scala_extension(node: Node, kind: str) -> Found | None:
    """``extension (sku: Sku)`` is named by the extended type."""
    parameters = node.child_by_field_name("parameters")
    parameter = parameters.named_children[0] if parameters and parameters.named_children else None
    extended = parameter.child_by_field_name("type") if parameter is not None else None
    return _found(node, "extension", text(extended))


# -- Lua -----------------------------------------------------------------------------------


def _lua_value_kind(value: Node | None) -> str:
    if value is None:
        return ""
    if value.type == "function_definition":
        return "function"
    if value.type == "table_constructor" and any(
        _lua_value_kind(c.child_by_field_name("value")) == "function"
        for c in value.named_children
        if c.type == "field"
    ):
        return "object"
    return ""


def lua_function(node: Node, kind: str) -> Found | None:
    """``function M.foo()``, ``local function foo()``; ``function Class:bar()`` is the method
    ``Class.bar``."""
    name = text(node.child_by_field_name("name"))
    if ":" in name:
        return _found(node, "method", name.replace(":", "."))
    return _found(node, "function", name)


def lua_assignment(node: Node, kind: str) -> Found | None:
    """``M.foo = function () end``, ``local bar = function () end``, ``M.handlers = { ... }``
    holding functions."""
    names = node.named_children[0] if node.named_children else None
    values = node.named_children[-1] if len(node.named_children) > 1 else None
    if names is None or values is None or len(names.named_children) != 1:
        return None
    value = values.named_children[0] if values.named_children else None
    return _found(node, _lua_value_kind(value), text(names.named_children[0]))


def lua_field(node: Node, kind: str) -> Found | None:
    """``log = function (message) ... end`` in a table."""
    value_kind = _lua_value_kind(node.child_by_field_name("value"))
    return _found(node, value_kind, text(node.child_by_field_name("name")))


def lua_test(node: Node, kind: str) -> Found | None:
    """busted's ``describe("name", function () ... end)`` and ``it(...)``."""
    test_kind = TEST_CALLS.get(text(node.child_by_field_name("name")), "")
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is None or first.type != "string":
        return None
    return _found(node, test_kind, text(first.child_by_field_name("content")))


# -- Elixir --------------------------------------------------------------------------------


def _elixir_name(argument: Node) -> str:
    while argument.type == "binary_operator":  # def foo(x) when is_integer(x)
        left = argument.child_by_field_name("left")
        if left is None:
            return ""
        argument = left
    if argument.type == "call":
        return text(argument.child_by_field_name("target"))
    if argument.type == "string":
        return text(argument).strip('"')
    return text(argument)


def elixir_call(node: Node, kind: str) -> Found | None:
    """``defmodule A.B do``, ``def foo(x)``, ``defp``, ``defmacro``, ``defprotocol``,
    ExUnit's ``describe``/``test``: calls named by their first argument; ``defimpl P, for: T``
    is the module ``P.T``."""
    target = node.child_by_field_name("target")
    definition = ELIXIR_DEFINITIONS.get(text(target)) if target is not None else None
    if definition is None:
        return None
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    if arguments is None or not arguments.named_children:
        return None
    name = _elixir_name(arguments.named_children[0])
    for keywords in arguments.named_children[1:]:
        for pair in keywords.named_children if keywords.type == "keywords" else ():
            if text(pair.child_by_field_name("key")).strip() == "for:":
                name += "." + text(pair.child_by_field_name("value"))  # the impl's module name
    return _found(node, definition, name)


# -- Haskell, OCaml ------------------------------------------------------------------------


def haskell_instance(node: Node, kind: str) -> Found | None:
    """``instance Show Expr where`` is named ``Show Expr``."""
    head = " ".join(
        text(node.child_by_field_name(f))
        for f in ("name", "patterns")
        if node.child_by_field_name(f)
    )
    return _found(node, "instance", " ".join(head.split()))


_OCAML_TOP = frozenset(("compilation_unit", "structure"))


def ocaml_let(node: Node, kind: str) -> Found | None:
    """A ``let`` (or ``and``) binding of a module or file, not of an expression: a function if it
    takes parameters or is a ``function``/``fun``, else a value; ``let%expect_test "name"`` is a
    test. ``let () = ...`` is unnamed."""
    definition = node.parent
    if definition is None or definition.parent is None or definition.parent.type not in _OCAML_TOP:
        return None
    pattern = node.child_by_field_name("pattern")
    if pattern is not None and pattern.type == "string":  # let%expect_test "name" = ...
        return _found(node, "test", text(pattern).strip('"'))
    if pattern is None or pattern.type not in ("value_name", "parenthesized_operator"):
        return None
    body = node.child_by_field_name("body")
    is_function = any(c.type == "parameter" for c in node.named_children) or (
        body is not None and body.type in ("function_expression", "fun_expression")
    )
    return _found(node, "function" if is_function else "value", text(pattern))


# -- Dart ----------------------------------------------------------------------------------

_DART_SIGNATURES = frozenset(
    (
        "constant_constructor_signature",
        "constructor_signature",
        "factory_constructor_signature",
        "function_signature",
        "getter_signature",
        "operator_signature",
        "redirecting_factory_constructor_signature",
        "setter_signature",
    )
)


def _dart_signature_name(signature: Node) -> str:
    if signature.type == "method_signature" and signature.named_children:
        signature = signature.named_children[0]
    if signature.type not in _DART_SIGNATURES:
        return ""
    if signature.type == "operator_signature":
        return "operator " + text(next((c for c in signature.children if not c.is_named), None))
    name = signature.child_by_field_name("name")
    if name is not None:
        return text(name)
    # A constructor: ``Note(...)`` is named ``Note``, ``Note.fromJson(...)`` ``fromJson``.
    names = [text(c) for c in signature.named_children if c.type == "identifier"]
    return names[1] if len(names) > 1 else "".join(names)


def dart_signature(node: Node, kind: str) -> Found | None:
    """A function or method: its signature and the body that follows it as a sibling."""
    if node.parent is not None and node.parent.type in ("method_signature", "declaration"):
        return None  # the enclosing node is the symbol
    body = node.next_named_sibling
    last = body if body is not None and body.type == "function_body" else None
    in_class = node.parent is not None and node.parent.type != "program"
    return _found(node, "method" if in_class else "function", _dart_signature_name(node), last)


def dart_declaration(node: Node, kind: str) -> Found | None:
    """A member without a body (an abstract method, a constructor); fields are not symbols."""
    signature = node.named_children[0] if node.named_children else None
    if signature is None:
        return None
    return _found(node, "method", _dart_signature_name(signature))


# -- Zig, Julia ----------------------------------------------------------------------------


def zig_container(node: Node, kind: str) -> Found | None:
    """``const Point = struct { ... };`` (and enums, unions, opaque types)."""
    value = next((c for c in node.named_children if c.type in ZIG_CONTAINERS), None)
    if value is None:
        return None
    return _found(node, ZIG_CONTAINERS[value.type], text(_name_child(node)))


_JULIA_WRAPPERS = frozenset(
    (
        "binary_expression",  # Circle <: Shape
        "call_expression",
        "parametrized_type_expression",  # Running{T}
        "signature",
        "type_head",
        "typed_expression",  # f(x)::Int
        "where_expression",
    )
)


def _julia_name(node: Node | None) -> str:
    while node is not None and node.type in _JULIA_WRAPPERS:
        node = node.named_children[0] if node.named_children else None
    return text(node)


def julia_function(node: Node, kind: str) -> Found | None:
    """``function f(x) ... end``, ``function Base.show(io, x)``, ``macro m(x) ... end``."""
    signature = next((c for c in node.named_children if c.type == "signature"), None)
    return _found(node, kind, _julia_name(signature))


def julia_type(node: Node, kind: str) -> Found | None:
    """``struct Running{T} <: Acc``, ``abstract type Shape end``: named by the type."""
    head = next((c for c in node.named_children if c.type == "type_head"), None)
    return _found(node, kind, _julia_name(head))


def julia_short_function(node: Node, kind: str) -> Found | None:
    """``area(c::Circle) = pi * c.r^2``."""
    left = node.named_children[0] if node.named_children else None
    while left is not None and left.type in ("where_expression", "typed_expression"):
        left = left.named_children[0] if left.named_children else None
    if left is None or left.type != "call_expression":
        return None
    return _found(node, "function", _julia_name(left))


def julia_test(node: Node, kind: str) -> Found | None:
    """``@testset "name" begin ... end``."""
    macro = node.named_children[0] if node.named_children else None
    test_kind = TEST_CALLS.get(text(macro).lstrip("@"), "")
    arguments = next((c for c in node.named_children if c.type == "macro_argument_list"), None)
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is None or first.type != "string_literal":
        return None
    return _found(node, test_kind, text(first).strip('"'))


RULES: Mapping[str, Rule] = MappingProxyType(
    {
        "csharp_operator": csharp_operator,
        "dart_declaration": dart_declaration,
        "dart_signature": dart_signature,
        "elixir_call": elixir_call,
        "first_name": first_name,
        "go_method": go_method,
        "haskell_instance": haskell_instance,
        "js_assignment": js_assignment,
        "js_declaration": js_declaration,
        "js_field": js_field,
        "js_method": js_method,
        "js_pair": js_pair,
        "julia_function": julia_function,
        "julia_short_function": julia_short_function,
        "julia_test": julia_test,
        "julia_type": julia_type,
        "keyword_kind": keyword_kind,
        "keyword_name": keyword_name,
        "kotlin_companion": kotlin_companion,
        "kotlin_function": kotlin_function,
        "lua_assignment": lua_assignment,
        "lua_field": lua_field,
        "lua_function": lua_function,
        "lua_test": lua_test,
        "ocaml_let": ocaml_let,
        "scala_extension": scala_extension,
        "string_name": string_name,
        "zig_container": zig_container,
    }
)

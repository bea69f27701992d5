"""Which tree-sitter grammar parses which language, and which node types are symbols. Data only.

Grammars come from the individual ``tree-sitter-LANGUAGE`` wheels, loaded on first use.
``SYMBOL_KINDS`` maps a node type to the kind reported in chunk metadata; ``CONTAINER_KINDS`` are
the kinds whose nested symbols are qualified with the container's name (``Class.method``) and
whose function-like children are reported as methods.
"""

from __future__ import annotations

# language -> (module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "bash": ("tree_sitter_bash", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "python": ("tree_sitter_python", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
}

SYMBOL_KINDS: dict[str, str] = {
    # classes and other containers
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "class_definition": "class",
    "class_specifier": "class",
    "class": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "trait_item": "trait",
    "struct_item": "struct",
    "struct_specifier": "struct",
    "struct_declaration": "struct",
    "enum_declaration": "enum",
    "enum_item": "enum",
    "enum_specifier": "enum",
    "record_declaration": "class",
    "impl_item": "impl",
    "mod_item": "module",
    "module": "module",
    "namespace_definition": "namespace",
    "namespace_declaration": "namespace",
    "type_declaration": "type",
    "type_alias_declaration": "type",
    # functions
    "function_definition": "function",
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_item": "function",
    "method_definition": "method",
    "method_declaration": "method",
    "constructor_declaration": "method",
    "method": "method",
    "singleton_method": "method",
}

CONTAINER_KINDS: frozenset[str] = frozenset(
    ("class", "interface", "trait", "struct", "enum", "impl", "module", "namespace")
)

# Wrappers whose span (decorators, export keyword) belongs to the symbol inside them.
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
    )
)

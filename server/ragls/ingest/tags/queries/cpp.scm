; ragls's additions for C++, besides the grammar's tags.scm and c.scm: namespaces, methods
; defined outside their class (Class::method, destructors), aliases, concepts.

(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(function_declarator
  declarator: (qualified_identifier
    name: [(identifier) (destructor_name) (operator_name) (field_identifier)] @name)) @definition.method

(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method

(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method

(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        name: (qualified_identifier
          name: [(identifier) (destructor_name) (operator_name)] @name))))) @definition.method

(function_declarator declarator: (destructor_name) @name) @definition.method

(function_declarator declarator: (operator_name) @name) @definition.function

(alias_declaration name: (type_identifier) @name) @definition.type

(concept_definition name: (identifier) @name) @definition.type

(class_specifier name: (type_identifier) @name body: (_)) @definition.class

(type_definition declarator: (reference_declarator (type_identifier) @name)) @definition.type

; specialisations: template <> struct formatter<T> { ... }
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class

; `class EXPORT_MACRO Name { ... };`, which the grammar reads as a function returning a class
; called EXPORT_MACRO: Name is the class.
(function_definition
  type: (class_specifier !body)
  declarator: (identifier) @name
  body: (compound_statement)) @definition.class
(function_definition
  type: (struct_specifier !body)
  declarator: (identifier) @name
  body: (compound_statement)) @definition.struct

; conversion operators, named "operator TYPE" as ctags and the language name them
(function_definition declarator: (operator_cast) @name) @definition.function
(declaration declarator: (operator_cast) @name) @definition.function
(function_definition declarator: (qualified_identifier name: (operator_cast) @name)) @definition.method

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

(function_declarator declarator: (destructor_name) @name) @definition.method

(function_declarator declarator: (operator_name) @name) @definition.function

(alias_declaration name: (type_identifier) @name) @definition.type

(concept_definition name: (identifier) @name) @definition.type

(class_specifier name: (type_identifier) @name body: (_)) @definition.class

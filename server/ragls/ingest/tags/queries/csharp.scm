; C# definitions and references (its grammar wheel ships no tags.scm).

(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.enum_variant
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration) @name @definition.method
(operator_declaration) @name @definition.method
(conversion_operator_declaration) @name @definition.method
(indexer_declaration) @name @definition.method
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.property
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(local_function_statement name: (identifier) @name) @definition.function

(invocation_expression
  function: [
    (identifier) @name
    (member_access_expression name: (identifier) @name)
  ]) @reference.call

(object_creation_expression type: (identifier) @name) @reference.class

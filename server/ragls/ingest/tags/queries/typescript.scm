; ragls's additions for TypeScript and TSX: type aliases, enums, namespaces, class fields and
; interface members, besides the grammar's tags.scm and javascript.scm.

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.property

(property_signature name: (property_identifier) @name) @definition.property

(abstract_class_declaration name: (type_identifier) @name) @definition.class

(function_signature name: (identifier) @name) @definition.function

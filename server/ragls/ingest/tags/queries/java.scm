; ragls's additions to the Java grammar's tags.scm: enums, records, annotation types,
; constructors, fields and enum constants.

(enum_declaration name: (identifier) @name) @definition.enum

(record_declaration name: (identifier) @name) @definition.class

(annotation_type_declaration name: (identifier) @name) @definition.interface

(constructor_declaration name: (identifier) @name) @definition.method

(compact_constructor_declaration name: (identifier) @name) @definition.method

(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field

(enum_constant name: (identifier) @name) @definition.enum_variant

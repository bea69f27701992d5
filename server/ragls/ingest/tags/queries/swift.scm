; Swift definitions and references, in place of the grammar wheel's tags.scm (whose methods and
; properties span their whole class, so each would contain the next). Classes, structs, actors,
; enums and their cases, extensions (the containers of the methods they add), protocols and
; their requirements, functions, initialisers, properties, type aliases.

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration
  declaration_kind: "extension"
  name: (user_type . (type_identifier) @name)) @definition.extension
(protocol_declaration name: (type_identifier) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.function
(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property
(typealias_declaration name: (type_identifier) @name) @definition.type
(enum_entry name: (simple_identifier) @name @definition.enum_variant)

(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; Zig definitions and references (its grammar wheel ships no tags.scm): functions, the
; containers a constant names (`const Server = struct {...}`, enums, unions, error sets,
; opaque types; not a variable whose type is an anonymous container), their fields, other
; top-level constants and variables.

(function_declaration name: (identifier) @name) @definition.function

(variable_declaration (identifier) @name "=" . (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name "=" . (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name "=" . (union_declaration)) @definition.struct
(variable_declaration (identifier) @name "=" . (opaque_declaration)) @definition.type
(variable_declaration (identifier) @name "=" . (error_set_declaration)) @definition.type

; the fields of a named container (not of a variable's anonymous type)
(variable_declaration
  "=" .
  [
    (struct_declaration (container_field name: (identifier) @name) @definition.field)
    (enum_declaration (container_field name: (identifier) @name) @definition.field)
    (union_declaration (container_field name: (identifier) @name) @definition.field)
  ])

; the name alone is the span, so a container above (same node, wider span) wins
(source_file (variable_declaration (identifier) @name @definition.constant))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression member: (identifier) @name)) @reference.call

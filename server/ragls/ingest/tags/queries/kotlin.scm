; Kotlin definitions and references (its grammar wheel ships no tags.scm).

(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.object
(companion_object name: (_) @name) @definition.object
; an unnamed companion object is called Companion (`Outer.Companion`)
(companion_object !name) @name @definition.object
(function_declaration name: (_) @name) @definition.function
(type_alias type: (_) @name) @definition.type
(enum_entry (identifier) @name) @definition.enum_variant
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
(class_parameter (identifier) @name) @definition.property

(call_expression
  [
    (identifier) @name
    (navigation_expression (identifier) @name .)
  ]) @reference.call

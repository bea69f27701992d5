; ragls's additions to the Dart grammar's tags.scm: extension types (Dart 3), the containers of
; their members; top-level getters and setters, and abstract ones (declared without a body).

(extension_type_declaration name: (identifier) @name) @definition.class

(program (getter_signature name: (identifier) @name) @definition.function)
(program (setter_signature name: (identifier) @name) @definition.function)
(declaration (getter_signature name: (identifier) @name)) @definition.method
(declaration (setter_signature name: (identifier) @name)) @definition.method

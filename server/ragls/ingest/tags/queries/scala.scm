; ragls's additions to the Scala grammar's tags.scm: abstract members (`def name: T` without a
; body, as in traits) and type members.

(function_declaration name: (identifier) @name) @definition.function

(type_definition name: (type_identifier) @name) @definition.type

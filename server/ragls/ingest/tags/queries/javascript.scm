; ragls's additions to the JavaScript grammar's tags.scm (also read for TypeScript and TSX):
; constructors and the names bound at the top of a module.

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(program
  [
    (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)
    (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)
    (export_statement
      (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
    (export_statement
      (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
  ])

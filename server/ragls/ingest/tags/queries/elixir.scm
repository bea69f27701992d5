; ragls's additions to the Elixir grammar's tags.scm: type specifications (`@type`, `@typep`,
; `@opaque`) and behaviour callbacks (`@callback`, `@macrocallback`).

(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_attribute
    (arguments
      (binary_operator
        left: [(identifier) @name (call target: (identifier) @name)]
        operator: "::")))
  (#any-of? @_attribute "type" "typep" "opaque")) @definition.type

(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_attribute
    (arguments
      [
        (binary_operator left: (call target: (identifier) @name) operator: "::")
        (binary_operator
          left: (binary_operator left: (call target: (identifier) @name) operator: "::")
          operator: "when")
      ]))
  (#any-of? @_attribute "callback" "macrocallback")) @definition.function

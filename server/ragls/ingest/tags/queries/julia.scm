; Julia definitions and references (its grammar wheel ships no tags.scm): modules, abstract,
; primitive and (mutable) struct types, functions in long and short form (`f(x) = ...`,
; methods of another module's function such as `Base.show` by their last name), macros,
; constants.

(module_definition name: (identifier) @name) @definition.module

(abstract_definition
  (type_head [
    (identifier) @name
    (parametrized_type_expression . (identifier) @name)
    (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])
  ])) @definition.type

(primitive_definition
  (type_head [
    (identifier) @name
    (binary_expression . (identifier) @name)
  ])) @definition.type

(struct_definition
  (type_head [
    (identifier) @name
    (parametrized_type_expression . (identifier) @name)
    (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])
  ])) @definition.struct

(function_definition
  (signature [
    (call_expression . [(identifier) @name (field_expression (identifier) @name .)])
    (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
    (where_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
    (where_expression . (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)])))
  ])) @definition.function

(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro

(assignment
  . [
    (call_expression . [(identifier) @name (field_expression (identifier) @name .)])
    (where_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
    (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
  ]
  (operator) @_eq (#eq? @_eq "=")) @definition.function

(const_statement (assignment . (identifier) @name)) @definition.constant

(call_expression . [(identifier) @name (field_expression (identifier) @name .)]) @reference.call
(macrocall_expression (macro_identifier (identifier) @name)) @reference.call

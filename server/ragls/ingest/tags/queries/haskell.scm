; Haskell definitions and references (its grammar wheel ships no tags.scm): the module, types,
; type classes, constructors, record fields (accessor functions), and the functions and values
; bound at the top level or in a class or instance (a function's type signature and equations
; are one definition: `merge_clauses` in languages.py; local `let` and `where` bindings are not
; definitions).

(header module: (module) @name) @definition.module

(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(data_family name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface

(data_constructor constructor: (prefix name: (constructor) @name)) @definition.constructor
(data_constructor constructor: (infix operator: (constructor_operator) @name)) @definition.constructor
(data_constructor constructor: (record name: (constructor) @name)) @definition.constructor
(gadt_constructor name: (constructor) @name) @definition.constructor
(newtype_constructor name: (constructor) @name) @definition.constructor
(field name: (field_name (variable) @name)) @definition.field

(declarations (signature name: (variable) @name) @definition.function)
(declarations (signature names: (binding_list name: (variable) @name @definition.function)))
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(class_declarations (signature name: (variable) @name) @definition.function)
(class_declarations (signature names: (binding_list name: (variable) @name @definition.function)))
(class_declarations (function name: (variable) @name) @definition.function)
(instance_declarations (function name: (variable) @name) @definition.function)
(instance_declarations (bind name: (variable) @name) @definition.function)
(pattern_synonym (signature synonym: (constructor) @name) @definition.constructor)
(pattern_synonym (equation synonym: (constructor) @name) @definition.constructor)

(apply function: (variable) @name) @reference.call
(apply function: (qualified (variable) @name)) @reference.call

; Bash definitions and references (its grammar wheel ships no tags.scm).

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @name)) @reference.call

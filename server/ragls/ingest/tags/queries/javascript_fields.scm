; JavaScript's class fields (TypeScript's are public_field_definition, in typescript.scm).

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.property

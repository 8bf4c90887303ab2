/** Every rule `validate` reports, with the one-line description shown in SARIF and the docs. */
export const rules = {
  "yaml-syntax": "The file is not valid YAML.",
  "file-unreadable": "The file cannot be read.",
  "schema-unknown-key": "A key that the schema does not know (the schema is closed, so typos never pass).",
  "schema-required": "A required key is missing.",
  "schema-type": "A value has the wrong type.",
  "schema-enum": "A value is not one of the allowed values.",
  "schema-format": "A value does not have the required form (pattern, range or length).",
  "integrations-missing": "An integrations folder or glob of the project file matches no definition file.",
  "env-unset": "An ${env:NAME} reference names a variable that is not set and has no default.",
  "cell-syntax": "A code cell is not valid JavaScript (strict mode).",
  "cell-forbidden": "A code cell uses something cells do not have (import, require, process).",
  "cell-code-from-string":
    "A code cell makes code from a string (eval, Function, x.constructor.constructor): cells cannot, it fails when it runs.",
  "unknown-formula-variable":
    "A reference to a service request formula variable that the integration does not have.",
  "unknown-value-mapping-set": "A reference to a value mapping set that the integration does not have.",
  "unknown-system": "A service request names a system that the project file does not have.",
  "missing-service-request": "A REQUEST or RESPONSE mask or rule without a service_request.",
  "duplicate-name": "Two integrations share a name.",
  "duplicate-formula-variable": "Two service requests share a formula variable.",
  "duplicate-endpoint": "Two endpoints share a method and path.",
  "endpoint-path": "An endpoint path under /_bass (serve's admin routes) or with a {param} named twice.",
  "request-schema": "A request_schema that is not a JSON Schema 2020-12 serve can compile.",
  "duplicate-value-mapping-set": "Two value mapping sets share a name.",
  "mapping-source": "A field mapping needs exactly one of literal and value.",
  "loop-variable-scope": "A loop variable used where it is not bound.",
  "secret-literal": "A literal that looks like a secret; take it from the environment with ${env:NAME}.",
  "http-mapping-required": "A service request on an http system needs service_path and method mappings.",
  "field-path": "A field path that cannot be parsed.",
  "case-source": "A test case with both input and input_file, or both mocks and cassette.",
  "duplicate-case": "Two cases of a test file share a name.",
} as const;

export type RuleId = keyof typeof rules;

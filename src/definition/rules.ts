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
  "unknown-vault":
    "An `open_vault('name')` with a literal name names a vault the project file does not seed.",
  "schedule-invalid":
    "A `schedule` that cannot run: a cron pattern or time zone that is not one, or an `every` without a unit.",
  "unknown-module":
    "An `import_module('name')` with a literal name names no module of the project file's `modules`.",
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
  "test-matcher": "A $type or $match matcher in a test's expectations that cannot match.",
  "unknown-integration":
    "A test file, or a `callint('name', …)` with a literal name, names an integration that the project does not have.",
} as const;

export type RuleId = keyof typeof rules;

/** What each rule checks at length, and how to fix what it finds: SARIF's `fullDescription` and `help`. */
export const ruleHelp: Record<RuleId, { description: string; help: string }> = {
  "yaml-syntax": {
    description:
      "The file is not YAML (duplicate keys included). Only the first syntax error of a file is reported, since the parser's later complaints echo it.",
    help: "Fix the YAML at the line shown: indent with spaces, not tabs; quote a value that holds `: ` or starts with a special character; give each key once.",
  },
  "file-unreadable": {
    description:
      "A definition or test file that cannot be read (missing, a folder, or without read permission).",
    help: "Check that the path exists, is a file, and that the user running bass may read it.",
  },
  "schema-unknown-key": {
    description: "A key the schema does not know. The schemas are closed, so a typo never passes silently.",
    help: "Correct the key's spelling (the message suggests the nearest known key), or remove it.",
  },
  "schema-required": {
    description: "A key the schema requires is missing.",
    help: "Add the key named in the message.",
  },
  "schema-type": {
    description: "A value has the wrong type (a list where an object belongs, a number where a string does).",
    help: "Give the value the type the message names; quote a value that YAML reads as a number or boolean.",
  },
  "schema-enum": {
    description: "A value is not one of the values the schema allows.",
    help: "Use one of the allowed values listed in the message.",
  },
  "schema-format": {
    description: "A value does not have the required form: a pattern, a range, or a length.",
    help: "Change the value to the form the message describes.",
  },
  "integrations-missing": {
    description: "A folder or glob of the project file's `integrations` matches no definition file.",
    help: "Fix the folder or glob in the project file, or add definition files there.",
  },
  "env-unset": {
    description:
      "An `${env:NAME}` reference names a variable that is not set and has no default; run and serve refuse to start on it.",
    help: "Set the variable in the environment, or give a default: `${env:NAME:-value}`.",
  },
  "cell-syntax": {
    description: "A code cell is not valid JavaScript in strict mode.",
    help: "Fix the JavaScript at the line and column shown; write multi-line cells as `|` blocks so lines match the file.",
  },
  "cell-forbidden": {
    description:
      "A code cell uses something cells do not have: `import`, `require`, `process`, `module` and the like (errors), or one of Node's own globals such as `setTimeout` or `fetch` (a warning: it fails when it runs).",
    help: "Use the special functions cells are given instead, or move the work into an adapter module.",
  },
  "cell-code-from-string": {
    description:
      "A code cell makes code from a string (`eval`, `Function`, `x.constructor.constructor`). Cells run where code cannot be made from strings, so it fails when it runs.",
    help: "Write the code in the cell itself.",
  },
  "unknown-formula-variable": {
    description:
      "A `service_request` key, or `x.request` / `x.response` in a cell, names a formula variable that no service request of the integration has.",
    help: "Use the formula_variable of one of the integration's service requests, or add the service request.",
  },
  "schedule-invalid": {
    description:
      "A definition's `schedule` has both or neither of `every` and `cron`, a cron pattern or `tz` that croner refuses, or an `every` that is not a whole number and a unit.",
    help: 'Give `every: 5m` or `cron: "0 9 * * 1-5"` (with `tz: Europe/Paris` if need be).',
  },
  "unknown-module": {
    description:
      "`import_module('name')` with a literal name names no module of the project file's `modules`, so the cell fails when it runs.",
    help: "Use the name of one of the project file's modules, or add it there: `modules: { name: path/to/file.js }`.",
  },
  "unknown-vault": {
    description:
      "In a project whose file seeds vaults (`vaults:`), `open_vault('name')` with a literal name names none of them: most likely a typo, since a vault the file does not seed starts empty.",
    help: "Use the name of one of the project file's vaults, or add it there (an empty `name: {}` will do).",
  },
  "unknown-value-mapping-set": {
    description:
      "A `value_mapping_set`, or `map_value('name', …)` with a literal name, names a set the integration does not have.",
    help: "Use the name of one of the integration's value_mapping_sets, or add the set.",
  },
  "unknown-system": {
    description: "A service request names a system that the project file does not have.",
    help: "Add the system under `systems:` in the project file, or use one it has.",
  },
  "missing-service-request": {
    description: "A REQUEST or RESPONSE mask or validation rule without a `service_request`.",
    help: "Name the service request (its formula_variable) the mask or rule applies to.",
  },
  "duplicate-name": {
    description: "Two integrations share a name; every integration's name must be unique in the project.",
    help: "Rename one of them.",
  },
  "duplicate-formula-variable": {
    description: "Two service requests of one integration share a formula variable.",
    help: "Give each service request a formula_variable of its own.",
  },
  "duplicate-endpoint": {
    description: "Two endpoints share a method and path (every `{param}` compares alike).",
    help: "Change the method or path of one of them, or remove it.",
  },
  "endpoint-path": {
    description:
      "An endpoint under `/_bass` (serve's admin routes would shadow it), or a path naming one `{param}` twice.",
    help: "Move the endpoint out of /_bass, or give each path parameter its own name.",
  },
  "request-schema": {
    description:
      "A `request_schema` or an endpoint's `params` that serve could not compile: not a JSON Schema 2020-12, a `pattern` that is not a regular expression, or a `$ref` into the schema that points at nothing.",
    help: "Fix the keyword the message points at so the schema is valid JSON Schema 2020-12.",
  },
  "duplicate-value-mapping-set": {
    description: "Two value mapping sets of one integration share a name.",
    help: "Rename one of them.",
  },
  "mapping-source": {
    description: "A field mapping needs exactly one of `literal` and `value`.",
    help: "Keep either the literal or the value of the mapping.",
  },
  "loop-variable-scope": {
    description: "A loop variable (`sritem`, `fidx`, `vritem`, `_`, `mitem`, …) used where it is not bound.",
    help: "Use the variable only in the cells of the loop that binds it.",
  },
  "secret-literal": {
    description:
      "A literal that looks like a credential: an auth header, serve's tokens and passwords, a password in a URL, or a well-known key shape.",
    help: "Take the value from the environment with `${env:NAME}`, and rotate the credential if it was committed.",
  },
  "http-mapping-required": {
    description: "A service request on an http system needs `service_path` and `method` field mappings.",
    help: "Add field mappings for service_path and method.",
  },
  "field-path": {
    description:
      "A field or mask path that cannot be parsed. Mask paths take names, indexes and `[*]`, not expressions.",
    help: "Write the path as names and indexes, such as `payload.accounts[0].number` or `items[*].iban`.",
  },
  "case-source": {
    description: "A test case with both `input` and `input_file`, or both `mocks` and `cassette`.",
    help: "Keep one of the two.",
  },
  "duplicate-case": {
    description: "Two cases of one test file share a name.",
    help: "Give each case a name of its own.",
  },
  "unknown-integration": {
    description:
      "A test file's `integration`, or a `callint('name', …)` with a literal name, names no integration of the project, so that test cannot run, or that call fails.",
    help: "Use the name of one of the project's integrations (the message suggests the nearest), or add the integration.",
  },
  "test-matcher": {
    description:
      "A matcher in a test's expectations that cannot match: a `$type` that is not one of string, number, integer, boolean, object, array and null, or a `$match` that is not a regular expression.",
    help: "Name one of the types, or fix the regular expression.",
  },
};

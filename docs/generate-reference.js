#!/usr/bin/env node
// Writes docs/reference.md from the published JSON Schemas:
//
//   node docs/generate-reference.js > docs/reference.md
//
// Every key of schema/definition.schema.json, schema/project.schema.json and schema/test.schema.json
// becomes one row (key, type, default, meaning), in schema order, which is the order of the
// definition, project and test file docs. Meanings and defaults come from each key's `description` ("… Default X." gives the default). Where
// a schema has no description for a key yet, `supplements` below fills the gap; test/docs.test.ts fails
// when a supplement is left over after the schema gained its own description, so the schemas stay the
// source. A key with neither makes this script fail, so a new key cannot be added without documenting it.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const schemaFiles = {
  definition: "definition.schema.json",
  project: "project.schema.json",
  test: "test.schema.json",
};

/**
 * Meanings (`meaning`) and defaults (`default`) for keys whose schema says nothing yet, by schema and
 * JSON pointer. Once a schema describes a key, delete its entry here (test/docs.test.ts says which).
 */
export const supplements = {
  definition: {
    "/properties/description": { default: "none" },
    "/properties/timeout_ms": { default: "`limits.run_timeout_ms` of the project file (30000)" },
    "/properties/endpoints": { default: "none: the integration is not served" },
    "/properties/request_schema": { default: "none: no check" },
    "/properties/before_hook": { default: "none" },
    "/properties/on_success_hook": { default: "none" },
    "/properties/on_failure_hook": { default: "none" },
    "/properties/finally_hook": { default: "none" },
    "/properties/value_mapping_sets": {
      meaning: "Lookup tables for `map_value(set, value)` and a field mapping's `value_mapping_set`.",
      default: "`[]`",
    },
    "/properties/masks": {
      meaning: "What to hide from everything bass records or shows.",
      default: "`[]`",
    },
    "/properties/validation_rules": {
      meaning: "Checks of the input, of a prepared request or of a response.",
      default: "`[]`",
    },
    "/properties/service_requests": {
      meaning: "Calls to connected systems, in `sequence` order.",
      default: "`[]`",
    },
    "/$defs/endpoint/properties/method": { meaning: "HTTP method of the route." },
    "/$defs/valueMappingSet/properties/name": {
      meaning: "Name of the set, unique in the integration; `map_value` and `value_mapping_set` use it.",
    },
    "/$defs/valueMappingSet/properties/case_sensitive": {
      meaning: "Compare `String(value)` and `String(from)` as written; otherwise both are lower-cased.",
    },
    "/$defs/valueMappingSet/properties/default_to_value": { default: "none: an unknown value is kept" },
    "/$defs/valueMappingSet/properties/mappings": { meaning: "The pairs, tried in order." },
    "/$defs/valueMappingSet/properties/mappings/items/properties/from": {
      meaning: "A value as it comes in; compared as a string.",
    },
    "/$defs/valueMappingSet/properties/mappings/items/properties/to": {
      meaning: "What `from` maps to.",
    },
    "/$defs/mask/properties/type": {
      meaning:
        "`INPUT`: the input payload (as received, and again after `before_hook`); `RESPONSE`: the response payload of `service_request`.",
    },
    "/$defs/mask/properties/service_request": { default: "`null`" },
    "/$defs/mask/properties/apply_to_each": { default: "`null`: `field` is relative to the payload" },
    "/$defs/mask/properties/apply_if": { default: "none: every element" },
    "/$defs/mask/properties/abort_if_not_applied_x_times": { default: "`0`: never fails" },
    "/$defs/validationRule/properties/type": {
      meaning:
        "`INPUT`: after the INPUT masks, before any service request; `REQUEST`: after a call's field mappings; `RESPONSE`: after a successful adapter answer.",
    },
    "/$defs/validationRule/properties/service_request": { default: "`null`" },
    "/$defs/validationRule/properties/message": {
      meaning: "Text of the VALIDATION_FAILURE item and of the 422 answer's `details`.",
    },
    "/$defs/validationRule/properties/apply_if": {
      meaning: "Cell; when falsy, the rule is skipped.",
      default: "none: always",
    },
    "/$defs/validationRule/properties/apply_to_each": { default: "none: the rule runs once" },
    "/$defs/validationRule/properties/abort_on_failure": {
      meaning: "A failure puts the run (or, for REQUEST/RESPONSE, the call) in failure.",
    },
    "/$defs/validationRule/properties/pass_hook": {
      meaning: "Cell run when the rule passes.",
      default: "none",
    },
    "/$defs/validationRule/properties/fail_hook": { default: "none" },
    "/$defs/fieldMapping/properties/value_type": { default: "none: no cast" },
    "/$defs/fieldMapping/properties/nullable": {
      meaning:
        "Whether `null` may be written; `false` fails the call on a null or undefined value, `true` writes `null`.",
    },
    "/$defs/fieldMapping/properties/include_if": {
      meaning: "Cell; when falsy, nothing is written (sees `fitem`, `fidx`).",
      default: "none: always",
    },
    "/$defs/fieldMapping/properties/include_for_each": { default: "none: the mapping runs once" },
    "/$defs/fieldMapping/properties/value_mapping_set": { default: "none" },
    "/$defs/fieldMapping/properties/message_substitution_name": {
      default: "none: `humanize` gives the field back",
    },
    "/$defs/validationRule/properties/message_substitution_name": { default: "none" },
    "/$defs/serviceRequest/properties/message_substitution_name": { default: "none" },
    "/$defs/serviceRequest/properties/service_name": {
      meaning: "Free label of the call, kept in `request.service_name` and the REQUEST item.",
      default: '`"n/a"`',
    },
    "/$defs/serviceRequest/properties/call_if": {
      meaning: "Cell; when falsy, no call is made (the formula variable stays `null`).",
      default: "none: always",
    },
    "/$defs/serviceRequest/properties/call_for_each": { default: "none: one call" },
    "/$defs/serviceRequest/properties/abort_after_execute_request_failure": {
      meaning: "A failed call puts the run in failure; `false` goes on with the next call.",
    },
    "/$defs/serviceRequest/properties/before_prepare_request_hook": {
      meaning: "Cell run first in each call, before the field mappings.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_prepare_request_success_hook": {
      meaning: "Cell run when the mappings and REQUEST rules succeeded.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_prepare_request_failure_hook": {
      meaning: "Cell run when preparing failed; the call is not executed.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/before_execute_request_hook": {
      meaning: "Cell run just before the adapter is called.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_execute_request_success_hook": {
      meaning: "Cell run after a successful answer that passed the RESPONSE rules.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_execute_request_failure_hook": {
      meaning: "Cell run after `success: false`, an adapter error or a failed RESPONSE rule.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_overall_success_hook": {
      meaning: "Cell run last in a call that succeeded.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/after_overall_failure_hook": {
      meaning: "Cell run last in a call that failed.",
      default: "none",
    },
    "/$defs/serviceRequest/properties/field_mappings": {
      meaning: "Build the request payload, in `sequence` order.",
      default: "`[]`",
    },
  },
  project: {
    "/properties/systems": { default: "`{}`" },
    "/properties/mockcore": { meaning: 'The embedded mock core of `base_url: "mockcore:"`.' },
    "/properties/mockcore/properties/data": { default: "none: in memory, from the demo data" },
    "/properties/history": { meaning: "The run history." },
    "/properties/history/properties/dir": {
      meaning:
        "Folder of the run records: JSON lines in segment files of up to `max_runs / 10` (at most 100) runs each; see the README.",
    },
    "/properties/history/properties/store_payloads": { default: "`true`" },
    "/properties/serve": { meaning: "Settings of `bass serve`." },
    "/properties/serve/properties/host": {
      meaning: "Address to listen on; a non-loopback one needs `auth` (or `--insecure`).",
    },
    "/properties/serve/properties/port": { meaning: "Port to listen on; `--port` overrides it." },
    "/properties/serve/properties/auth": { default: "`{ type: none }`" },
    "/properties/serve/properties/body_limit_bytes": {
      meaning: "Largest request body; a larger one is answered 413.",
      default: "`1048576` (1 MiB)",
    },
    "/properties/serve/properties/max_concurrent_runs": {
      meaning: "Runs at once; one more is answered 503 with `Retry-After`.",
      default: "`64`",
    },
    "/properties/serve/properties/idempotency_ttl_s": {
      meaning: "How long an `Idempotency-Key` answer is kept and replayed, in seconds.",
      default: "`86400` (a day)",
    },
    "/properties/limits": { meaning: "Time limits of runs." },
    "/properties/limits/properties/cell_timeout_ms": {
      meaning: "Longest time one cell may run; then it throws a time-out (504).",
    },
    "/properties/limits/properties/run_timeout_ms": {
      meaning: "Whole-run limit of an integration without its own `timeout_ms`.",
    },
    "/$defs/system/properties/base_url": { default: "none (the `http` adapter needs one)" },
    "/$defs/system/properties/timeout_ms": {
      meaning: "Time limit of one HTTP attempt, in milliseconds.",
      default: "`10000`",
    },
    "/$defs/system/properties/retries": {
      meaning:
        "Retries of the `http` adapter, only for GET/HEAD/PUT/DELETE or a request with an `Idempotency-Key`/`X-Idempotency-Key` header.",
      default: "none: no retry",
    },
    "/$defs/system/properties/retries/properties/max": {
      meaning: "Retries after the first attempt.",
      default: "`0`",
    },
    "/$defs/system/properties/retries/properties/backoff_ms": {
      meaning: "Base of the exponential backoff (with full jitter), in milliseconds.",
      default: "`100`",
    },
    "/$defs/system/properties/headers": {
      meaning:
        "Headers sent with every request of the system; use `${env:…}` for credentials (a literal one is a `secret-literal` finding).",
      default: "`{}`",
    },
    "/$defs/system/properties/options": { default: "none" },
    "/$defs/auth/properties/type": { meaning: "How `bass serve` checks callers." },
    "/$defs/auth/properties/tokens": {
      meaning: "Accepted bearer tokens; write them as `${env:…}` references.",
    },
    "/$defs/auth/properties/users": {
      meaning: "Accepted basic-auth users, name → password; write passwords as `${env:…}` references.",
    },
  },
  test: {
    "/properties/cases": { meaning: "The cases, run in parallel, reported in file order." },
    "/$defs/case/properties/input": { default: "`{ payload: {} }`" },
    "/$defs/case/properties/input/properties/payload": {
      meaning: "The request body (`input.payload`).",
      default: "`{}`",
    },
    "/$defs/case/properties/input/properties/method": {
      meaning: "`input.method`.",
      default: "the method of the integration's first endpoint (POST without one)",
    },
    "/$defs/case/properties/input/properties/path": {
      meaning: "`input.path`: the values of `{param}` segments.",
      default: "`{}`",
    },
    "/$defs/case/properties/input/properties/params": {
      meaning: "`input.params`: the query.",
      default: "`{}`",
    },
    "/$defs/case/properties/input/properties/headers": {
      meaning: "`input.headers`; names are lower-cased, as `node:http` gives them.",
      default: "`{}`",
    },
    "/$defs/case/properties/request/properties/payload": { meaning: "As `input.payload`.", default: "`{}`" },
    "/$defs/case/properties/request/properties/method": { meaning: "As `input.method`." },
    "/$defs/case/properties/request/properties/path": { meaning: "As `input.path`.", default: "`{}`" },
    "/$defs/case/properties/request/properties/params": { meaning: "As `input.params`.", default: "`{}`" },
    "/$defs/case/properties/request/properties/headers": { meaning: "As `input.headers`.", default: "`{}`" },
    "/$defs/case/properties/mocks": { default: "none: see `cassette`" },
    "/$defs/case/properties/cassette": {
      default: "none: without `mocks` or `cassette` the case calls the project's systems",
    },
    "/$defs/case/properties/expect": {
      meaning: "What the run must show; every expectation left out is not checked.",
      default: "`{}`: the case passes when the run completes",
    },
    "/$defs/answer/properties/success": { meaning: "Whether the call succeeded." },
    "/$defs/answer/properties/status": { meaning: "The status code the system answered." },
    "/$defs/answer/properties/payload": { meaning: "The response payload." },
    "/$defs/answer/properties/messages": {
      meaning: "The adapter's messages (for a failure: why).",
      default: "`[]`",
    },
    "/$defs/expect/properties/state": { default: "not checked" },
    "/$defs/expect/properties/output": { default: "not checked" },
    "/$defs/expect/properties/items": { default: "not checked" },
    "/$defs/expect/properties/never_recorded": { default: "not checked" },
    "/$defs/expect/properties/output/properties/status": { meaning: "`output.status`." },
    "/$defs/expect/properties/output/properties/headers": {
      meaning: "`output.headers` (subset, names as the run set them).",
    },
    "/$defs/expect/properties/output/properties/payload": { meaning: "`output.payload` (subset)." },
  },
};

/** Hand-written parts: what the tables cannot say. Kept short; the README holds the details. */
const prose = {
  intro: `# Reference: definition, project and test files

<!-- Generated by docs/generate-reference.js from schema/*.schema.json. Do not edit this file:
     change the schemas (or the script), then run  node docs/generate-reference.js > docs/reference.md -->

Every key bass reads from its three kinds of YAML file, with its
type, its default and what it does. The same texts show in your editor when a file starts with a
\`# yaml-language-server: $schema=…\` line (see [the tutorial](tutorial.md#2-a-project-file)).

- [Definition file](#definition-file) — one integration, \`integrations/<name>.yaml\`
- [Project file](#project-file) — \`bass.config.yaml\`
- [Test file](#test-file) — \`*.test.yaml\`
- [Cells, namespace and special functions](#cells-namespace-and-special-functions)

All three schemas are closed: a key that is not listed here is an error (\`schema-unknown-key\`, with a
"did you mean" for typos). "Required" in the Default column means the key must be there.
`,
  definition: `A cell is JavaScript in a string (write it as a \`|\` block so findings and errors point at the right
line). A one-line cell that is an expression yields its value; any other cell is a function body and
yields what it \`return\`s. See [Cells, namespace and special functions](#cells-namespace-and-special-functions).

\`sequence\` orders service requests, field mappings, validation rules and masks: ascending, ties keep
file order.
`,
  definitionAfter: `### How a run uses these keys

1. \`input\` and \`output\` are built; an integration with \`active: false\` refuses to run.
2. \`before_hook\`.
3. INPUT \`masks\` (they change what is recorded, never the data of the run).
4. INPUT \`validation_rules\`: all of them run; a failure with \`abort_on_failure\` puts the run in failure (422).
5. \`service_requests\`, while the run is not in failure. Each call: \`before_prepare_request_hook\` →
   \`field_mappings\` → REQUEST rules → \`after_prepare_request_*_hook\` → \`before_execute_request_hook\` →
   the adapter → RESPONSE masks → RESPONSE rules → \`after_execute_request_*_hook\` →
   \`after_overall_*_hook\`.
6. \`on_success_hook\` or \`on_failure_hook\`.
7. \`finally_hook\`, always.
8. The output is checked and recorded.

A run that fails without a hook setting the output answers 422 (a failed validation rule), 502 (a
system answered \`success: false\` or could not be reached), 504 (a time-out) or 500 (anything else),
with \`{ "error": { "code", "message", "run_id", "details" } }\`. How cells see globals, time
limits, RESPONSE rules on error answers and masking by value are in
[How runs behave](behaviour.md#how-runs-behave).
`,
  project: `\`\${env:NAME}\` and \`\${env:NAME:-default}\` may appear in any string. A variable that is not set
and has no default is a warning of \`bass validate\` (\`env-unset\`) and stops \`run\`, \`serve\` and
\`test\` (exit 2). A value that came from the environment (other than in a \`base_url\`) is a secret:
it is never printed and is masked in the run history. Systems and adapters are described in the README
under [Systems and adapters](behaviour.md#systems-and-adapters).
`,
  test: `\`bass test\` runs every \`*.test.yaml\` of the project (or the files and folders it is given). Each
case runs the integration once with \`trigger: test\`, answering its service requests from \`mocks\`
(as \`bass run --mock\` does), from a \`cassette\` (as \`bass run --replay\` does), or, with neither, by
calling the project's systems. Runs of cases are kept in the run history like any other.
`,
  cells: `## Cells, namespace and special functions

Names every cell sees:

| name | what it is |
|---|---|
| \`input\` | \`{ payload, method, path, params, headers, fullpath, user }\` — \`path\` holds \`{param}\` values, \`params\` the query, header names are lower case; \`user\` is \`{ id, username, email }\` under serve's auth (\`id\` and \`email\` are null: bass knows neither) (the basic-auth user, or \`bearer:\` and the first 8 hex of the token's SHA-256), else \`null\`; \`files\`, when the request carried files (a form's, by field name, a name twice a list; a body of another type than JSON and XML as \`files.file\`; \`bass run --file name=PATH\`), holds each as \`{ name, type, size, bytes(), text() }\`; the record keeps name, type and size, never the content |
| \`run_history_id\` | the run's id, as \`bass history\` shows it |
| \`parentint\` | in a run that \`callint\` started and waits for: the calling run's namespace as it was at the call, read-only; else \`null\` |
| \`output\` | \`{ status, headers, payload }\`, starting as \`{ status: 200, headers: {}, payload: "Integration <name> completed successfully" }\` |
| a formula variable | per service request: \`null\` until called, then \`{ request: { service_name, payload }, response: { success, status, payload, messages } }\`; a list with \`call_for_each\` |
| kept names | whatever \`keep({ … })\` added |
| \`sritem\`, \`sridx\` | the item of \`call_for_each\`, in that service request's cells |
| \`fitem\`, \`fidx\` | the item of \`include_for_each\`, in that field mapping's cells |
| \`_\`, \`vritem\`, \`vridx\`, \`vrmsg\` | in a validation rule: the \`field\` value, the \`apply_to_each\` item, the message (in \`fail_hook\`) |
| \`mitem\`, \`midx\` | in a mask's \`apply_if\` |

| function | what it does |
|---|---|
| \`end({ state?, payload?, status?, headers? })\` | sets the output and ends the run when the cell returns; \`finally_hook\` still runs |
| \`map_value(set, value)\` | looks \`value\` up in a value mapping set of the integration |
| \`keep({ name: value })\` | adds names for later cells |
| \`historize(value, label?)\`, \`debug(value, label?)\` | adds a DEBUG item to the run history |
| \`console.log/info/warn/error(…)\` | adds a LOG item; nothing is printed |
| \`add_run_label(label)\` | labels the run (\`bass history --label\`) |
| \`humanize(name)\` | the \`message_substitution_name\` of the field mapping whose \`field\` is \`name\` (with or without list indexes: \`people[2].name\` finds \`people[fidx].name\`), of the validation rule whose \`field\` code it is, or of the service request it is the formula variable of; else \`name\` itself |
| \`bytes(string, encoding = "utf8")\` | a byte string for \`output.payload\` with a \`Content-Type\` header |
| \`get_namespace()\` | a copy of the namespace's data for debugging (\`historize(get_namespace())\`), masked as the record is |
| \`await callint(name, payload, { extended, mode })\` | runs another integration of the project as a run of its own (trigger \`callint\`, \`parent_run\` this run's id) and answers its output \`{ status, headers, payload }\`; the run gets a CALLINT item \`{ run_id, integration, status, duration_ms }\`. \`payload\` is the body of a POST, or with \`extended: true\` an envelope \`{ payload, method, path, params, headers }\`. \`mode: "async"\` answers the child's 202 at once, \`"sync"\` waits though the child is \`run_async\`. A sync child sees this run's namespace as \`parentint\` (read-only), gets what is left of this run's time, and masks in its record what this run masks. A chain is 10 deep at most (a \`callint_depth\` FAILURE) |
| \`await calladapter(system, service_name, payload, { label })\` | one call of a system from a cell, as a service request makes it, within the run's time; recorded as a REQUEST item under \`label\` (else the service name); answers \`{ request, response }\` as a formula variable holds them, a failed call \`success: false\` |
| \`decimal(x)\` | an exact decimal number (big.js): \`plus\`, \`minus\`, \`times\`, \`div\` (20 places), \`cmp\`, \`eq\`, \`round(places, mode)\` with \`mode\` one of \`half_up\` (the default), \`half_even\`, \`down\`, \`up\`, \`toFixed(places)\`, \`toString()\`; JSON holds it as text. \`x\` is a string (\`"12.30"\`, \`"1e3"\`) or a finite number; \`decimal(null)\` is \`null\`. Money is never arithmetic on JavaScript numbers: \`0.1 + 0.2\` is \`0.30000000000000004\`, \`decimal("0.1").plus("0.2")\` is \`0.3\`. (\`historize\` a decimal's \`toString()\`: the item records the number's parts otherwise) |
| \`data_utils\` | \`round_half_up(value, places)\`, \`percent_to_decimal(value)\` (a string gives a string, a number a number, reckoned exactly), \`extract_digits(text)\`, \`extract_chars(text)\` (letters only), \`get_current_date_string(time_zone = "UTC", format = "%Y-%m-%d")\`, \`convert_date_string(text, in_format, out_format)\` (strftime's \`%Y %y %m %d %H %M %S %f %b %B\`), and \`new IndexGenerator(start = 0)\` whose \`next()\` counts up. As on the platform: \`null\` in, \`null\` out; \`""\` stays \`""\` |
| \`await open_vault(name)\` | holds the project's vault \`name\` until the cell ends (another run waits; one that waits past its cell's time fails with \`vault_busy\`) and gives its operations, all synchronous: \`get(key)\` (\`null\` when absent), \`insert\` (refuses a key it holds), \`update\` (needs one), \`upsert\`, \`delete\`, and the same for secrets: \`get_secret\`, \`insert_secret\`, \`update_secret\`, \`upsert_secret\`, \`delete_secret\`. Items are JSON; secrets are text, kept encrypted with the state key in \`.bass/vaults/<name>.json\` and masked by value in every record once the run reads or writes them |
| \`open_file(name, mode = "r")\` | opens one of the run's own files: the request's files (by file name; a name twice gets \`-2\`) and those its cells write. Modes: \`r\` and \`rb\` read (text, or a \`Uint8Array\`), \`w\` and \`wb\` write from empty, \`a\` and \`ab\` append. The handle has \`read()\`, \`write(data)\` (text in text modes; text or bytes in binary ones) and \`close()\`. A name is a plain file name (no folders); a run's files hold 64 MB at most. Where the project keeps payloads (\`history.store_payloads\`, the default), they are kept with the run's record in \`.bass/files/<run id>/\` and pruned with it, a masked value masked in a file's name and in a text file, a file of other bytes that holds one not kept; the record's \`files\` names them, the history page downloads them |
| \`list_files()\` | the names of the run's files, in the order they came or were made |
| \`import_module(name)\` | a shared module of the project file's \`modules\` (\`modules: { helpers: lib/helpers.js }\`): a JavaScript file in CommonJS shape (\`exports.name = …\` or \`module.exports = {…}\`, no \`require\`), evaluated once per load in the cells' realm when a cell first imports it, its exports frozen, so that no run changes them (a module that keeps state in its closures shares it between runs: keep modules free of it). Its functions keep the calling cell's time limit where the cell calls them before its first \`await\`; after it, a loop in one is not interrupted. \`bass serve --watch\` reloads it when it changes |

Cells see the standard JavaScript built-ins (\`JSON\`, \`Math\`, \`Date\`, \`encodeURIComponent\`, …),
\`TextEncoder\`, \`TextDecoder\`, \`atob\`, \`btoa\` and \`structuredClone\`, and not \`require\`,
\`import\`, \`process\` or the file system (\`cell-forbidden\` finds them). They run in a realm of their own
whose built-ins are frozen and where no code is made from a string (\`eval\`, \`Function\`), so no run
changes what another sees. A cell may \`await\` (but in a mask's \`apply_if\`). A cell that
runs longer than \`limits.cell_timeout_ms\`, its promise work included, throws a time-out.
`,
};

/** The three schemas, read next to this script's folder. */
export function readSchemas() {
  const read = (file) => JSON.parse(readFileSync(new URL(`../schema/${file}`, import.meta.url), "utf8"));
  return {
    definition: read(schemaFiles.definition),
    project: read(schemaFiles.project),
    test: read(schemaFiles.test),
  };
}

/** The whole of docs/reference.md. */
export function generateReference(schemas = readSchemas()) {
  const sections = [
    prose.intro,
    section({
      heading: "Definition file",
      kind: "definition",
      schema: schemas.definition,
      file: "schema/definition.schema.json",
      where:
        "One integration per file, found under the `integrations` folders or globs of the project file (`*.yaml`, `*.yml`; not `*.test.yaml`).",
      before: prose.definition,
      after: prose.definitionAfter,
    }),
    section({
      heading: "Project file",
      kind: "project",
      schema: schemas.project,
      file: "schema/project.schema.json",
      where:
        "`bass.config.yaml`, found in the current folder or an ancestor, or in the folder `--project DIR` names. Every key is optional.",
      before: prose.project,
    }),
    section({
      heading: "Test file",
      kind: "test",
      schema: schemas.test,
      file: "schema/test.schema.json",
      where: "`*.test.yaml` anywhere in the project (dot-folders and `node_modules` aside).",
      before: prose.test,
    }),
    prose.cells,
  ];
  return `${sections.join("\n").trimEnd()}\n`;
}

/** Supplements that are no longer needed (the schema describes the key now) or name no key: to be deleted. */
export function staleSupplements(schemas = readSchemas()) {
  const stale = [];
  for (const [kind, entries] of Object.entries(supplements)) {
    for (const [pointer, entry] of Object.entries(entries)) {
      const node = resolvePointer(schemas[kind], pointer);
      if (!node) {
        stale.push(`${kind} ${pointer}: no such key in schema/${schemaFiles[kind]}`);
        continue;
      }
      const own = describe(schemas[kind], node);
      if (entry.meaning && own.meaning) stale.push(`${kind} ${pointer}: the schema describes it now`);
      if (entry.default && own.default) stale.push(`${kind} ${pointer}: the schema gives its default now`);
    }
  }
  return stale;
}

function section({ heading, kind, schema, file, where, before, after }) {
  const out = [`## ${heading}`, "", `${where} Schema: [\`${file}\`](../${file}).`, ""];
  out.push(escapeCell(schema.description), "");
  if (before) out.push(before);
  const tables = [];
  collect(schema, schema, "", "", kind, tables);
  for (const table of tables) {
    out.push(`### ${table.title}`, "");
    if (table.note) out.push(escapeCell(table.note), "");
    out.push("| Key | Type | Default | Meaning |", "|---|---|---|---|");
    for (const row of table.rows) {
      out.push(`| ${row.key} | ${row.type} | ${row.default} | ${row.meaning} |`);
    }
    out.push("");
  }
  if (after) out.push(after);
  return out.join("\n");
}

/** Depth first: one table per object (the top level, then each nested object, list item or map value). */
function collect(root, node, pointer, path, kind, tables, rowMeaning) {
  const object = deref(root, node);
  // A shared definition may say more about the object than the key that holds it.
  const note = path && object.description !== rowMeaning ? object.description : undefined;
  const table = { title: path ? `\`${path}\`` : "Top level", note, rows: [] };
  tables.push(table);
  const nested = [];
  for (const [key, raw] of Object.entries(object.properties ?? {})) {
    const keyPointer = `${pointer}/properties/${key}`;
    const keyPath = path ? `${path}.${key}` : key;
    const { row, meaning } = describeRow(root, object, key, raw, keyPointer, kind);
    table.rows.push(row);
    const child = childObject(root, raw, keyPointer, keyPath);
    if (child) nested.push({ ...child, rowMeaning: meaning });
  }
  for (const child of nested)
    collect(root, child.node, child.pointer, child.path, kind, tables, child.rowMeaning);
}

/** The row of `key` in the table of `object` (its type, default or whether it is required, meaning) and its meaning as written. */
function describeRow(root, object, key, raw, keyPointer, kind) {
  const info = describe(root, raw);
  const extra = supplements[kind][keyPointer] ?? {};
  const meaning = info.meaning ?? extra.meaning;
  if (!meaning) {
    throw new Error(
      `${kind} schema: ${keyPointer} has no description; add one to schema/${schemaFiles[kind]} (or, for now, a supplement in docs/generate-reference.js)`,
    );
  }
  const conditions = conditionsOf(object, key);
  const fallback = info.default ?? extra.default ?? "—";
  const required = (object.required ?? []).includes(key);
  const row = {
    key: `\`${key}\``,
    type: escapeCell(typeText(root, raw)),
    default: required ? "**required**" : conditions ? `${fallback}; ${conditions}` : fallback,
    meaning: escapeCell(meaning),
  };
  return { row, meaning };
}

/**
 * The object with keys of its own that a key holds — itself, its list items, its map values, or one of
 * their alternatives — with the JSON pointer and the path of its table.
 */
function childObject(root, raw, pointer, path) {
  if (!raw || typeof raw !== "object" || raw.$ref === "#/$defs/cell") return undefined;
  const target = deref(root, raw);
  const here = raw.$ref ? raw.$ref.slice(1) : pointer;
  if (target.properties) return { node: raw, pointer: here, path };
  const inner = [
    [target.items, `${here}/items`, `${path}[]`],
    [target.additionalProperties, `${here}/additionalProperties`, `${path}.<name>`],
    ...(target.anyOf ?? []).map((alternative, index) => [alternative, `${here}/anyOf/${index}`, path]),
  ];
  for (const [node, innerPointer, innerPath] of inner) {
    const found = childObject(root, node, innerPointer, innerPath);
    if (found) return found;
  }
  return undefined;
}

/** A key's meaning and default, from its own description or, for a shared definition, the definition's. */
function describe(root, raw) {
  let text = raw.description;
  if (text === undefined && raw.$ref && raw.$ref !== "#/$defs/cell") text = deref(root, raw).description;
  if (text === undefined) return {};
  const match = /(?:^|\s)Default (.+)\.$/.exec(text);
  if (!match) return { meaning: text };
  const meaning = text.slice(0, match.index).trim();
  return { meaning: meaning || undefined, default: formatDefault(match[1]) };
}

function formatDefault(text) {
  if (text.startsWith("`")) return text;
  const [value, ...rest] = text.split(", ");
  const code = /^[\w."./-]+$/.test(value) ? `\`${value}\`` : value;
  return [code, ...rest].join(", ");
}

/** "string or list of string, not empty", "map of name → object", "`GET`, `POST`, …". */
function typeText(root, raw) {
  const base = shape(root, raw);
  const value = deref(root, raw);
  const limits = [];
  if (value.pattern) limits.push(`matching \`${value.pattern}\``);
  if (value.minimum !== undefined && value.maximum !== undefined)
    limits.push(`${value.minimum} to ${value.maximum}`);
  else if (value.minimum !== undefined) limits.push(`≥ ${value.minimum}`);
  if (value.minLength === 1 || value.minItems === 1 || value.minProperties === 1) limits.push("not empty");
  if (value.propertyNames?.pattern) limits.push(`names matching \`${value.propertyNames.pattern}\``);
  return [base, ...limits].join(", ");
}

function shape(root, raw) {
  if (!raw || typeof raw !== "object") return "any";
  if (raw.$ref === "#/$defs/cell") return "[cell](#cells-namespace-and-special-functions)";
  const value = deref(root, raw);
  if (value.enum)
    return value.enum.map((option) => (option === null ? "`null`" : `\`${option}\``)).join(", ");
  if (value.const !== undefined) return `\`${value.const}\``;
  if (value.anyOf) return value.anyOf.map((alternative) => shape(root, alternative)).join(" or ");
  const types = value.type === undefined ? [] : [value.type].flat();
  if (types.length === 0) return value.properties ? "object" : "any";
  return types
    .map((type) => {
      if (type === "array") return value.items ? `list of ${plural(grouped(root, value.items))}` : "list";
      if (type === "object" && value.additionalProperties && typeof value.additionalProperties === "object")
        return `map of name → ${shape(root, value.additionalProperties)}`;
      if (type === "object" && !value.properties) return "object (free-form)";
      return type;
    })
    .join(" or ");
}

function plural(text) {
  return text.replace(/^object\b/, "objects").replace(/^string$/, "strings");
}

function grouped(root, raw) {
  const text = shape(root, raw);
  return text.includes(" or ") ? `(${text})` : text;
}

/** "required when `type` is `bearer`", "not together with `input_file`": the if/then and not of a schema. */
function conditionsOf(object, key) {
  const notes = [];
  for (const rule of object.allOf ?? []) {
    const when = Object.entries(rule.if?.properties ?? {}).find(([, test]) => test.const !== undefined);
    if (when && rule.then?.required?.includes(key))
      notes.push(`required when \`${when[0]}\` is \`${when[1].const}\``);
  }
  for (const pair of object.not?.anyOf ?? []) {
    if (pair.required?.includes(key)) {
      const others = pair.required.filter((other) => other !== key).map((other) => `\`${other}\``);
      notes.push(`not together with ${others.join(", ")}`);
    }
  }
  return notes.join("; ");
}

function deref(root, node) {
  if (!node || typeof node !== "object" || !node.$ref) return node;
  return deref(root, resolvePointer(root, node.$ref.slice(1)));
}

function resolvePointer(root, pointer) {
  let node = root;
  for (const part of pointer.split("/").slice(1)) {
    if (!node || typeof node !== "object") return undefined;
    node = node[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return node;
}

/** Safe in a Markdown table cell: pipes escaped, one line, `*` outside code spans not read as emphasis. */
function escapeCell(text) {
  return text
    .replaceAll("\n", " ")
    .split("`")
    .map((part, index) => (index % 2 === 0 ? part.replaceAll("*", "\\*") : part))
    .join("`")
    .replaceAll("|", "\\|");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(generateReference());
}

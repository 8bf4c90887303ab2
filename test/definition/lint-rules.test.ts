import { describe, expect, it } from "vitest";
import type { RuleId } from "../../src/definition/rules.js";
import { defaultProjectFile, type LintFixtureOptions, lintDefinition } from "../_helpers.js";

/** A service request on the http system with the two mappings it needs, indented as a list item. */
const httpRequest = (extra = "") => `  - formula_variable: core
    system: core
    field_mappings:
      - { field: service_path, literal: /core/v1/persons }
      - { field: method, literal: GET }
${extra}`;

interface RuleCase {
  rule: RuleId;
  trips: string;
  at: [line: number, column: number];
  passes: string;
  options?: LintFixtureOptions;
  file?: string;
}

const cases: RuleCase[] = [
  { rule: "yaml-syntax", trips: "name: a\nname: b\n", at: [2, 1], passes: "name: a\n" },
  { rule: "yaml-syntax", trips: "name: a\nmasks: [\n", at: [3, 1], passes: "name: a\nmasks: []\n" },
  {
    rule: "schema-unknown-key",
    trips: "name: a\ndescripton: x\n",
    at: [2, 1],
    passes: "name: a\ndescription: x\n",
  },
  {
    rule: "schema-unknown-key",
    trips: `name: a\nservice_requests:\n${httpRequest("    on_success_hook: x\n")}`,
    at: [8, 5],
    passes: `name: a\nservice_requests:\n${httpRequest()}`,
  },
  {
    rule: "schema-required",
    trips: "name: a\nservice_requests:\n  - system: transform\n",
    at: [3, 5],
    passes: "name: a\nservice_requests:\n  - system: transform\n    formula_variable: t\n",
  },
  { rule: "schema-type", trips: 'name: a\nactive: "yes"\n', at: [2, 1], passes: "name: a\nactive: true\n" },
  {
    rule: "schema-enum",
    trips: "name: a\nmasks:\n  - type: OUTPUT\n    field: x\n",
    at: [3, 5],
    passes: "name: a\nmasks:\n  - type: INPUT\n    field: x\n",
  },
  { rule: "schema-format", trips: "name: Bad Name\n", at: [1, 1], passes: "name: good-name\n" },
  {
    rule: "env-unset",
    trips: "name: a\ndescription: ${env:BASS_TEST_UNSET}\n",
    at: [2, 14],
    passes: "name: a\ndescription: ${env:BASS_TEST_UNSET:-none}\n",
  },
  {
    rule: "env-unset",
    trips: "name: a\ndescription: see ${env:BASS_TEST_UNSET}\n",
    at: [2, 18],
    passes: "name: a\ndescription: see ${env:BASS_TEST_UNSET:-none}\n",
  },
  {
    rule: "env-unset",
    trips: "name: a\ndescription: |\n  first\n  then ${env:BASS_TEST_UNSET}\n",
    at: [4, 8],
    passes: "name: a\ndescription: |\n  first\n  then ${env:BASS_TEST_UNSET:-none}\n",
  },
  {
    rule: "cell-syntax",
    trips: "name: a\nbefore_hook: |\n  const a = 1\n  const b = a +* 2\n",
    at: [4, 16],
    passes: "name: a\nbefore_hook: |\n  const a = 1\n  keep({ a })\n",
  },
  {
    rule: "cell-syntax",
    trips: "name: a\non_success_hook: output.status = 01\n",
    at: [2, 34],
    passes: "name: a\non_success_hook: output.status = 201\n",
  },
  {
    rule: "cell-syntax",
    trips: "name: a\nbefore_hook: |\n  const a = 1\n  return a +\n\nfinally_hook: null\n",
    at: [4, 13],
    passes: "name: a\nbefore_hook: |\n  const a = 1\n  return a + 1\n\nfinally_hook: null\n",
  },
  {
    rule: "cell-forbidden",
    trips: "name: a\nbefore_hook: process.exit(1)\n",
    at: [2, 14],
    passes: "name: a\nbefore_hook: |\n  const process = 1\n  return process\n",
  },
  {
    rule: "cell-forbidden",
    trips: "name: a\nbefore_hook: |\n  const fs = require('node:fs')\n",
    at: [3, 14],
    passes: "name: a\nbefore_hook: |\n  const fs = 'require'\n",
  },
  // One of Node's globals a cell does not have: a warning, since a guard (typeof) may keep it from running.
  {
    rule: "cell-forbidden",
    trips: "name: a\nbefore_hook: |\n  setTimeout(() => {}, 10)\n",
    at: [3, 3],
    passes: "name: a\nbefore_hook: |\n  console.log(Math.max(1, 2), JSON.stringify({}))\n",
  },
  {
    rule: "cell-code-from-string",
    trips: "name: a\nbefore_hook: keep.constructor.constructor('return 1')()\n",
    at: [2, 14],
    passes: "name: a\nbefore_hook: keep.constructor.name\n",
  },
  {
    rule: "cell-code-from-string",
    trips: "name: a\nbefore_hook: |\n  const n = 1\n  return eval('n + 1')\n",
    at: [4, 10],
    passes: "name: a\nbefore_hook: |\n  const eval2 = (x) => x\n  return eval2('n + 1')\n",
  },
  {
    rule: "cell-code-from-string",
    trips: "name: a\nbefore_hook: new Function('return 1')()\n",
    at: [2, 14],
    passes: "name: a\nbefore_hook: |\n  const Function = (x) => x\n  return Function('return 1')\n",
  },
  {
    rule: "unknown-formula-variable",
    trips: `name: a\non_success_hook: output.payload = crm.response.payload\nservice_requests:\n${httpRequest()}`,
    at: [2, 35],
    passes: `name: a\non_success_hook: output.payload = core.response.payload\nservice_requests:\n${httpRequest()}`,
  },
  {
    rule: "unknown-formula-variable",
    trips: `name: a\nmasks:\n  - { type: RESPONSE, service_request: crm, field: taxId }\nservice_requests:\n${httpRequest()}`,
    at: [3, 23],
    passes: `name: a\nmasks:\n  - { type: RESPONSE, service_request: core, field: taxId }\nservice_requests:\n${httpRequest()}`,
  },
  {
    rule: "unknown-value-mapping-set",
    trips: `name: a\nservice_requests:\n${httpRequest("      - { field: body.s, value: input.payload.s, value_mapping_set: statuses }\n")}`,
    at: [8, 50],
    passes: `name: a\nvalue_mapping_sets:\n  - { name: statuses, mappings: [] }\nservice_requests:\n${httpRequest("      - { field: body.s, value: input.payload.s, value_mapping_set: statuses }\n")}`,
  },
  {
    rule: "schedule-invalid",
    trips: "name: a\nschedule: { cron: '0 25 * * *' }\n",
    at: [2, 13],
    passes: "name: a\nschedule: { cron: '0 9 * * 1-5', tz: UTC }\n",
  },
  {
    rule: "unknown-module",
    trips: "name: a\nbefore_hook: |\n  keep({ m: import_module('helpres') })\n",
    at: [3, 27],
    // A cell's own import_module is its own business.
    passes:
      "name: a\nbefore_hook: |\n  const import_module = (name) => name\n  keep({ m: import_module('helpres') })\n",
    options: { project: `${defaultProjectFile}modules:\n  helpers: lib/helpers.js\n` },
  },
  {
    rule: "unknown-vault",
    trips: "name: a\nbefore_hook: |\n  keep({ v: await open_vault('partnrs') })\n",
    at: [3, 30],
    passes: "name: a\nbefore_hook: |\n  keep({ v: await open_vault('partners') })\n",
    options: { project: `${defaultProjectFile}vaults:\n  partners: {}\n` },
  },
  {
    rule: "unknown-value-mapping-set",
    trips: "name: a\nbefore_hook: |\n  keep({ s: map_value('statuses', 1) })\n",
    at: [3, 23],
    passes:
      "name: a\nvalue_mapping_sets:\n  - { name: statuses, mappings: [] }\nbefore_hook: |\n  keep({ s: map_value('statuses', 1) })\n",
  },
  {
    rule: "unknown-system",
    trips: "name: a\nservice_requests:\n  - formula_variable: c\n    system: crm\n",
    at: [4, 5],
    passes: "name: a\nservice_requests:\n  - formula_variable: c\n    system: transform\n",
  },
  {
    rule: "missing-service-request",
    trips: "name: a\nvalidation_rules:\n  - type: RESPONSE\n    field: x\n    rule: x\n",
    at: [3, 5],
    passes: "name: a\nvalidation_rules:\n  - type: INPUT\n    field: x\n    rule: x\n",
  },
  {
    rule: "duplicate-name",
    trips: "name: a\n",
    at: [1, 1],
    passes: "name: b\n",
    options: { more: { "integrations/0.yaml": "name: a\n" } },
  },
  {
    rule: "duplicate-formula-variable",
    trips:
      "name: a\nservice_requests:\n  - { formula_variable: t, system: transform }\n  - { formula_variable: t, system: transform }\n",
    at: [4, 7],
    passes:
      "name: a\nservice_requests:\n  - { formula_variable: t, system: transform }\n  - { formula_variable: u, system: transform }\n",
  },
  {
    rule: "duplicate-endpoint",
    trips:
      "name: a\nendpoints:\n  - { method: GET, path: '/x/{id}' }\n  - { method: GET, path: '/x/{key}' }\n",
    at: [4, 5],
    passes:
      "name: a\nendpoints:\n  - { method: GET, path: '/x/{id}' }\n  - { method: PUT, path: '/x/{key}' }\n",
  },
  {
    rule: "duplicate-endpoint",
    trips: "name: a\nendpoints:\n  - { method: GET, path: /x }\n",
    at: [3, 5],
    passes: "name: a\nendpoints:\n  - { method: GET, path: /y }\n",
    options: { more: { "integrations/0.yaml": "name: b\nendpoints:\n  - { method: GET, path: /x }\n" } },
  },
  {
    rule: "endpoint-path",
    trips: "name: a\nendpoints:\n  - { method: GET, path: /_bass/health }\n",
    at: [3, 20],
    passes: "name: a\nendpoints:\n  - { method: GET, path: /bass/health }\n",
  },
  {
    rule: "endpoint-path",
    trips: "name: a\nendpoints:\n  - { method: GET, path: '/a/{x}/{x}' }\n",
    at: [3, 20],
    passes: "name: a\nendpoints:\n  - { method: GET, path: '/a/{x}/{y}' }\n",
  },
  {
    rule: "request-schema",
    trips: "name: a\nrequest_schema:\n  type: object\n  properties:\n    amount: { type: money }\n",
    at: [5, 15],
    passes: "name: a\nrequest_schema:\n  type: object\n  properties:\n    amount: { type: number }\n",
  },
  {
    rule: "request-schema",
    trips: "name: a\nrequest_schema:\n  items: [{ minLength: -1 }]\n",
    at: [3, 3],
    passes: "name: a\nrequest_schema:\n  items: { minLength: 1 }\n",
  },
  {
    rule: "request-schema",
    trips: "name: a\nrequest_schema: { $ref: '#/$defs/nope' }\n",
    at: [2, 19],
    passes: "name: a\nrequest_schema: { $ref: '#/$defs/yes', $defs: { yes: { type: string } } }\n",
  },
  {
    rule: "request-schema",
    trips: "name: a\nrequest_schema:\n  properties:\n    iban: { type: string, pattern: '[A-Z' }\n",
    at: [4, 27],
    passes: "name: a\nrequest_schema:\n  properties:\n    pattern: { type: string, pattern: '[A-Z]' }\n",
  },
  {
    rule: "request-schema",
    trips:
      "name: a\nendpoints:\n  - method: GET\n    path: /a\n    params:\n      properties:\n        limit: { type: count }\n",
    at: [7, 18],
    passes:
      "name: a\nendpoints:\n  - method: GET\n    path: /a\n    params:\n      properties:\n        limit: { type: integer }\n",
  },
  {
    rule: "duplicate-value-mapping-set",
    trips: "name: a\nvalue_mapping_sets:\n  - { name: s, mappings: [] }\n  - { name: s, mappings: [] }\n",
    at: [4, 7],
    passes: "name: a\nvalue_mapping_sets:\n  - { name: s, mappings: [] }\n  - { name: t, mappings: [] }\n",
  },
  {
    rule: "mapping-source",
    trips: `name: a\nservice_requests:\n${httpRequest("      - field: body.x\n        literal: 1\n        value: '2'\n")}`,
    at: [8, 9],
    passes: `name: a\nservice_requests:\n${httpRequest("      - field: body.x\n        value: '2'\n")}`,
  },
  {
    rule: "mapping-source",
    trips: `name: a\nservice_requests:\n${httpRequest("      - field: body.x\n")}`,
    at: [8, 9],
    passes: `name: a\nservice_requests:\n${httpRequest("      - field: body.x\n        literal: null\n")}`,
  },
  {
    rule: "loop-variable-scope",
    trips: "name: a\nbefore_hook: 'keep({ first: sritem.name })'\n",
    at: [2, 29],
    passes:
      "name: a\nservice_requests:\n  - formula_variable: t\n    system: transform\n    call_for_each: input.payload.items\n    call_if: sritem.active\n",
  },
  {
    rule: "loop-variable-scope",
    trips: `name: a\nservice_requests:\n${httpRequest("      - { field: body.x, value: vritem }\n")}`,
    at: [8, 33],
    passes: `name: a\nservice_requests:\n${httpRequest("      - { field: 'body.x[fidx]', value: fitem, include_for_each: input.payload.xs }\n")}`,
  },
  {
    rule: "loop-variable-scope",
    trips: `name: a\nservice_requests:\n${httpRequest("      - { field: 'body.x[midx]', value: '1' }\n")}`,
    at: [8, 26],
    passes: `name: a\nservice_requests:\n${httpRequest("      - { field: 'body.x[sridx]', value: '1' }\n")}`,
  },
  {
    rule: "secret-literal",
    trips: `name: a\nservice_requests:\n${httpRequest("      - { field: headers.Authorization, literal: Bearer s3cr3t }\n")}`,
    at: [8, 50],
    passes: `name: a\nservice_requests:\n${httpRequest("      - { field: headers.Authorization, literal: 'Bearer ${env:TOKEN}' }\n")}`,
  },
  {
    rule: "secret-literal",
    trips: "name: a\ndescription: see https://api.example/v1?api_key=abc123\n",
    at: [2, 14],
    passes: "name: a\ndescription: see https://api.example/v1?page=2\n",
  },
  {
    rule: "secret-literal",
    file: "bass.config.yaml",
    trips: "name: a\n",
    at: [9, 27],
    passes: "name: a\n",
    options: {
      project: `${defaultProjectFile}  crm:\n    adapter: http\n    headers: { X-Api-Key: k3y-l1t3ral }\n`,
    },
  },
  {
    rule: "http-mapping-required",
    trips:
      "name: a\nservice_requests:\n  - formula_variable: core\n    system: core\n    field_mappings:\n      - { field: method, literal: GET }\n",
    at: [3, 5],
    passes: `name: a\nservice_requests:\n${httpRequest()}`,
  },
  {
    rule: "field-path",
    trips: `name: a\nservice_requests:\n${httpRequest("      - { field: body..x, literal: 1 }\n")}`,
    at: [8, 23],
    passes: `name: a\nservice_requests:\n${httpRequest("      - { field: 'body[\"x.y\"]', literal: 1 }\n")}`,
  },
  {
    rule: "field-path",
    trips: "name: a\nmasks:\n  - { type: INPUT, field: 'cards[input.i]' }\n",
    at: [3, 27],
    passes: "name: a\nmasks:\n  - { type: INPUT, field: 'cards[*].number' }\n",
  },
];

describe("lint rules", () => {
  it.each(cases)("$rule trips at $at", ({ rule, trips, at, options, file = "integrations/a.yaml" }) => {
    const found = lintDefinition(trips, options).filter((issue) => issue.rule === rule);
    expect(found.map((issue) => [issue.file, issue.line, issue.column])).toContainEqual([file, ...at]);
  });

  it.each(cases)("$rule stays quiet on a correct definition", ({ passes, options }) => {
    const env = { TOKEN: "from-the-environment" };
    expect(lintDefinition(passes, { env, ...(options?.more ? { more: options.more } : {}) })).toEqual([]);
  });

  it("covers every rule of the catalog", async () => {
    const { rules } = await import("../../src/definition/rules.js");
    // file-unreadable is tested in files.test.ts, integrations-missing in validate.test.ts, case-source,
    // test-matcher and unknown-integration (rules of test files) in test/testing/case-source.test.ts.
    const covered = new Set([
      ...cases.map((c) => c.rule),
      "file-unreadable",
      "integrations-missing",
      "case-source",
      "duplicate-case",
      "test-matcher",
      "unknown-integration",
    ]);
    expect(Object.keys(rules).filter((rule) => !covered.has(rule as RuleId))).toEqual([]);
  });
});

describe("schema findings", () => {
  it("reports a system name that breaks the name pattern once, at its key", () => {
    const project = 'systems:\n  core: { adapter: echo }\n  "core api": { adapter: echo }\n';
    expect(lintDefinition("name: a\n", { project })).toEqual([
      expect.objectContaining({
        file: "bass.config.yaml",
        line: 3,
        column: 3,
        rule: "schema-format",
        message: expect.stringContaining('"core api"'),
      }),
    ]);
  });
});

describe("secret-literal", () => {
  const secretsIn = (project: string) =>
    lintDefinition("name: a\n", { project }).filter((issue) => issue.rule === "secret-literal");
  const headers = (entries: string) => `systems:\n  crm:\n    adapter: echo\n    headers: { ${entries} }\n`;

  it.each<[string, boolean]>([
    ["Authorization", true],
    ["Proxy-Authorization", true],
    ["X-Auth-Token", true],
    ["X-Api-Key", true],
    ["apikey", true],
    ["Client_Secret", true],
    ["X-Request-Token-Name", false],
    ["X-Idempotency-Key", false],
    ["Content-Type", false],
  ])("takes a literal in header %s for a secret: %s", (name, flagged) => {
    expect(secretsIn(headers(`${name}: lit3ral-value`)).length > 0).toBe(flagged);
  });

  it.each(["Basic ${env:USER}:${env:PASSWORD}", "Bearer ${env:TOKEN}", "${env:SCHEME} ${env:TOKEN}"])(
    "takes %j for references only",
    (value) => {
      expect(secretsIn(headers(`Authorization: "${value}"`))).toEqual([]);
    },
  );

  it("names the path of the secret and marks the finding sensitive", () => {
    expect(secretsIn("serve:\n  auth: { type: bearer, tokens: [abc123] }\n")).toEqual([
      expect.objectContaining({
        line: 2,
        column: 34,
        message: expect.stringContaining("serve.auth.tokens[0]"),
        sensitive: true,
      }),
    ]);
  });
});

describe("lint rules on a malformed definition", () => {
  const rulesOf = (definition: string) => new Set(lintDefinition(definition).map((issue) => issue.rule));

  it.each([
    ["a null item", "  - null\n"],
    ["a string item", "  - core\n"],
    [
      "a mapping without field",
      "  - formula_variable: t\n    system: transform\n    field_mappings: [{ literal: 1 }, 7]\n",
    ],
    ["masks that are a string", "masks: everything\n"],
  ])("keeps the findings of the other items next to %s", (_, extra) => {
    const definition = `name: a
service_requests:
  - formula_variable: core
    system: core
    field_mappings:
      - { field: headers.Authorization, literal: Bearer s3cr3t-literal }
  - formula_variable: c
    system: crm
${extra}`;
    for (const rule of ["secret-literal", "unknown-system", "http-mapping-required"])
      expect(rulesOf(definition)).toContain(rule);
  });

  it("does not take a merge key for a system name", () => {
    const definition = `name: a
service_requests:
  - formula_variable: t
    <<: { system: transform }
`;
    const messages = lintDefinition(definition).map((issue) => issue.message);
    expect(messages.join("\n")).not.toMatch(/undefined/);
    expect(messages).toContainEqual(expect.stringMatching(/unknown key "<<"/));
  });
});

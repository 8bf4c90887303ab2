import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { definition as checkDefinition, project as checkProject } from "../../schema/validators.js";
import type { Definition, ProjectConfig } from "../../src/definition/types.js";
import { createTempDir, repoRoot, runCli } from "../_helpers.js";

const fixture = readFileSync(join(import.meta.dirname, "..", "fixtures", "glyue", "export.json"), "utf8");
const exported = JSON.parse(fixture);

/** A folder holding the fixture as export.json, imported into `out`. */
async function importFixture(out = "project") {
  const dir = createTempDir({ "export.json": fixture });
  const result = await runCli(["import", "glyue", "export.json", "--out", out], { cwd: dir });
  const read = (path: string) => readFileSync(join(dir, out, path), "utf8");
  return { dir, result, read, yaml: <T>(path: string) => parse(read(path)) as T };
}

const definitionFiles = [
  "integrations/customer_onboard.yaml",
  "integrations/accounts_batch_open.yaml",
  "integrations/account_snapshot.yaml",
];

const reportLines = [
  "scheduledjob: not a table bass reads; not carried over",
  "integration 1 swagger_response: a response schema has no place in a bass definition; not carried over (an endpoint's responses can describe the answers)",
  "integration 1 tags: bass has no tags; not carried over",
  "integration 1 owner_team: a field bass does not know; not carried over",
  "servicerequest 6 parent_servicerequest: a sub-request of service request 2: bass has no sub-requests; not carried over, nor its field mapping",
  "fieldmapping 13 source_field_name: pre-mapping notes have no place in a bass definition; not carried over",
  "fieldmapping 14 legacy_flag: a field bass does not know; not carried over",
  "fieldmapping 99 servicerequest: no servicerequest 999 in the export; not carried over",
  "validationrule 1 max_length: bass's validation rules have no max_length (check the length in rule); not carried over",
  "vault 1 secrets: a secret (acme_api_key) not carried over: bass writes no secret into a file; set it with bass vault set partners acme_api_key - --secret",
];

describe("bass import glyue", () => {
  it("writes a definition per integration, the project file, the report and .gitignore, and says what next", async () => {
    const { dir, result, read } = await importFixture();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        "imported 3 integrations and 4 systems from export.json into project (6 files)",
        "not carried over (10 items, also in project/IMPORT-REPORT.md):",
        ...reportLines.map((line) => `  ${line}`),
        "Next:",
        "  cd project",
        `  npm install --save-dev ${relative(join(dir, "project"), repoRoot)}`,
        "  npx bass validate",
        "  npx bass list",
        "",
      ].join("\n"),
    );
    expect(read(".gitignore")).toBe(".bass/\n");
    expect(read("IMPORT-REPORT.md")).toContain("from `export.json`, one line each");
  });

  it("writes files that pass the definition and project schemas", async () => {
    const { yaml } = await importFixture();
    for (const file of definitionFiles) {
      const valid = checkDefinition(yaml(file));
      expect(valid, `${file}: ${JSON.stringify(checkDefinition.errors)}`).toBe(true);
    }
    const valid = checkProject(yaml("bass.config.yaml"));
    expect(valid, JSON.stringify(checkProject.errors)).toBe(true);
  });

  it("keeps the names, the platform's endpoint, and each cell exactly as written, as Python", async () => {
    const { read, yaml } = await importFixture();
    const onboard = yaml<Definition>("integrations/customer_onboard.yaml");
    const integration = exported.integration.rows["1"];
    expect(onboard).toMatchObject({
      name: "customer_onboard",
      description: integration.description,
      language: "python",
      endpoints: [{ method: "POST", path: "/integrations/execute/customer_onboard" }],
      before_hook: integration.before_hook,
      on_success_hook: integration.on_success_hook,
      on_failure_hook: integration.on_failure_hook,
      finally_hook: integration.finally_hook,
    });
    // The OpenAPI request body the platform's Swagger page takes, unwrapped to its schema.
    expect(onboard.request_schema).toEqual(integration.swagger_request.content["application/json"].schema);
    const [screen] = onboard.service_requests ?? [];
    expect(screen?.field_mappings?.[0]).toEqual({
      field: "request_id",
      value: "import uuid\nretvalue = uuid.uuid4()",
      value_type: "string",
      sequence: 10,
    });
    // A multi-line cell is a literal block, its lines the file's lines.
    const text = read("integrations/customer_onboard.yaml");
    expect(text).toContain("        value: |-\n          import uuid\n          retvalue = uuid.uuid4()\n");
    expect(text).toContain("before_hook: |\n  payload = input.payload\n  if not payload.email:\n      end(");
    expect(text.split("\n", 1)[0]).toMatch(
      /^# yaml-language-server: \$schema=\S+\/definition\.schema\.json$/,
    );
  });

  it("orders service requests and field mappings by sequence and carries their settings", async () => {
    const { yaml } = await importFixture();
    const onboard = yaml<Definition>("integrations/customer_onboard.yaml");
    const [screen, core] = onboard.service_requests ?? [];
    expect(onboard.service_requests?.map((request) => request.formula_variable)).toEqual(["screen", "core"]);
    expect(screen).toMatchObject({
      system: "ECHO",
      service_name: "screening",
      call_if: 'input.payload.country != "US"',
      abort_after_execute_request_failure: false,
      after_overall_failure_hook: 'debug("screening did not answer")',
    });
    expect(core).toMatchObject({ system: "CORE", abort_after_execute_request_failure: true });
    // url_path is bass's service_path; sequence 10 comes first though the export lists it second.
    expect(core?.field_mappings?.slice(0, 2)).toEqual([
      { field: "service_path", value: '"/core/v1/persons"', value_type: "string", sequence: 10 },
      { field: "method", value: '"POST"', value_type: "string", sequence: 20 },
    ]);
    const types = Object.fromEntries(
      [...(screen?.field_mappings ?? []), ...(core?.field_mappings ?? [])].map((mapping) => [
        mapping.field,
        mapping.value_type,
      ]),
    );
    expect(types).toMatchObject({
      declared_income: "decimal",
      score: "number",
      "body.kycLevel": "integer",
      "body.marketingOptIn": "boolean",
      "body.address": "object",
      "body.phones": "array",
    });
    const batch = yaml<Definition>("integrations/accounts_batch_open.yaml");
    expect(batch.run_async).toBe(true);
    expect(batch.service_requests?.[0]).toMatchObject({
      formula_variable: "accounts",
      system: "CORE",
      call_for_each: "input.payload.accounts",
      call_if: "len(input.payload.accounts) > 0",
    });
    expect(batch.service_requests?.[0]?.field_mappings?.at(-1)).toEqual({
      field: "body.holders[fidx].personId",
      value: "fitem.customer_id",
      include_for_each: "sritem.holders",
      sequence: 50,
    });
  });

  it("carries value mapping sets, masks and validation rules", async () => {
    const { yaml } = await importFixture();
    const onboard = yaml<Definition>("integrations/customer_onboard.yaml");
    expect(onboard.value_mapping_sets).toEqual([
      {
        name: "segment_to_tier",
        case_sensitive: true,
        mappings: [
          { from: "retail", to: "standard" },
          { from: "private", to: "enhanced" },
        ],
      },
    ]);
    expect(onboard.service_requests?.[0]?.field_mappings?.[2]?.value_mapping_set).toBe("segment_to_tier");
    expect(onboard.masks).toEqual([
      { type: "INPUT", sequence: 10, field: "ssn" },
      { type: "INPUT", sequence: 20, field: '["tax:id"]' },
      {
        type: "INPUT",
        sequence: 30,
        field: "ssn",
        apply_to_each: "beneficiaries",
        apply_if: "mitem.ssn is not None",
        abort_if_not_applied_x_times: 1,
      },
      { type: "RESPONSE", service_request: "core", sequence: 40, field: "body.taxId" },
    ]);
    expect(onboard.validation_rules).toEqual([
      {
        type: "INPUT",
        sequence: 10,
        field: "input.payload.email",
        rule: '"@" in (_ or "")',
        message: "email must hold an @",
        abort_on_failure: true,
        fail_hook: "debug(vrmsg)",
      },
    ]);
    const batch = yaml<Definition>("integrations/accounts_batch_open.yaml");
    expect(batch.value_mapping_sets?.[0]).toMatchObject({ name: "product_codes", default_to_value: "DDA" });
  });

  it("gives an integration with http_api false no endpoint", async () => {
    const { yaml } = await importFixture();
    const snapshot = yaml<Definition>("integrations/account_snapshot.yaml");
    expect(snapshot.http_api).toBe(false);
    expect(snapshot.endpoints).toBeUndefined();
    expect(snapshot.service_requests?.[0]?.field_mappings?.at(-1)).toEqual({
      field: "headers.X-Trace",
      literal: null,
      nullable: true,
      sequence: 30,
    });
  });

  it("writes a system per platform system and the vault's items, never its secrets", async () => {
    const { read, yaml } = await importFixture();
    const project = yaml<ProjectConfig>("bass.config.yaml");
    expect(project.systems).toEqual({
      ECHO: { adapter: "echo" },
      CORE: { adapter: "http", base_url: "${env:CORE_URL:-https://core.example.com/api}" },
      CRM: { adapter: "http", base_url: "${env:CRM_URL}" },
      MOCKCORE: { adapter: "http", base_url: "mockcore:" },
    });
    expect(project.vaults).toEqual({ partners: { items: exported.vault.rows["1"].items } });
    const secret = exported.vault.rows["1"].secrets.acme_api_key;
    expect(read("bass.config.yaml")).not.toContain(secret);
    expect(read("IMPORT-REPORT.md")).not.toContain(secret);
    // The system's description is a comment above it.
    expect(read("bass.config.yaml")).toContain("  CORE:\n    # The core banking system\n");
  });

  it("writes the report to IMPORT-REPORT.md, a line per item", async () => {
    const { read } = await importFixture();
    const items = read("IMPORT-REPORT.md")
      .split("\n")
      .filter((line) => line.startsWith("- "))
      .map((line) => line.slice(2).replace(/^`([^`]*)`:/, "$1:"));
    expect(items).toEqual(reportLines);
  });

  it("writes over no file: it names every one there, and writes nothing", async () => {
    const dir = createTempDir({
      "export.json": fixture,
      "integrations/customer_onboard.yaml": "# mine\n",
      "IMPORT-REPORT.md": "# mine\n",
    });
    const refused = await runCli(["import", "glyue", "export.json"], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "bass: bass import glyue writes over no file, and these are there already: integrations/customer_onboard.yaml, IMPORT-REPORT.md; choose an empty folder (bass import glyue export.json --out my-project)\n",
    );
    expect(readFileSync(join(dir, "integrations/customer_onboard.yaml"), "utf8")).toBe("# mine\n");
    expect(existsSync(join(dir, "bass.config.yaml"))).toBe(false);
    expect(existsSync(join(dir, "integrations/account_snapshot.yaml"))).toBe(false);
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
  });

  it("adds .bass/ to a .gitignore that is there, and writes into the current folder by default", async () => {
    const dir = createTempDir({ "export.json": fixture, ".gitignore": "node_modules/\n" });
    const result = await runCli(["import", "glyue", "export.json"], { cwd: dir });
    expect(result.code).toBe(0);
    // The .gitignore it added a line to counts among the files it wrote.
    expect(result.stdout).toContain("into . (6 files)");
    expect(result.stdout).toContain("also in IMPORT-REPORT.md");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n.bass/\n");
    expect(existsSync(join(dir, "integrations/customer_onboard.yaml"))).toBe(true);
  });

  it.each([
    [
      "JSON with a syntax error",
      '{\n  "integration": { "rows": {} },\n  oops\n}\n',
      "bass: export.json:3:3: not valid JSON: invalid symbol; bass import glyue reads the JSON file the platform exports: mend it there, or export the integrations again\n",
    ],
    [
      "JSON that is a list",
      "[1, 2]",
      "bass: export.json is not a Glyue export: it holds a list, not an object of tables (integration, servicerequest, …); export the integrations from the platform again, as JSON\n",
    ],
    [
      "a table that is not an object of rows",
      '{ "integration": [] }',
      'bass: export.json: table integration is not { "rows": { "<id>": { …fields } } }; export the integrations from the platform again, as JSON\n',
    ],
    [
      "a row that is not an object",
      '{ "integration": { "rows": { "1": "customer_onboard" } } }',
      "bass: export.json: row 1 of table integration is not an object of fields\n",
    ],
    [
      "no integration",
      '{ "integration": { "rows": {} }, "system": { "rows": {} } }',
      "bass: export.json holds no integration (its integration table is missing or has no rows); export the integrations from the platform again, as JSON\n",
    ],
  ])("exits 2 on %s, naming the file, and writes nothing", async (_, text, message) => {
    const dir = createTempDir({ "export.json": text });
    const result = await runCli(["import", "glyue", "export.json", "--out", "out"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(message);
    expect(existsSync(join(dir, "out"))).toBe(false);
  });

  it.each([
    [["import", "glyue", "missing.json"], /^bass: cannot read missing\.json: /],
    [["import", "glyue"], /^error: missing required argument 'export'/],
    [["import", "glyue", "export.json", "--out", "export.json"], /^bass: export\.json is a file; /],
    [["import", "nope"], /^error: unknown command 'nope'/],
  ])("exits 2 on bad usage: bass %j", async (argv, message) => {
    const dir = createTempDir({ "export.json": fixture });
    const result = await runCli(argv, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(dir, "bass.config.yaml"))).toBe(false);
  });

  it("writes no path of this machine: the export by its file name, the schemas where the project installs bass", async () => {
    const dir = createTempDir({ "export.json": fixture });
    const result = await runCli(["import", "glyue", join(dir, "export.json"), "--out", "project"], {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const written = [...definitionFiles, "bass.config.yaml", "IMPORT-REPORT.md"].map((path) =>
      readFileSync(join(dir, "project", path), "utf8"),
    );
    for (const text of written) {
      expect(text).not.toContain(dir);
      expect(text).not.toContain(repoRoot);
    }
    expect(written[0]).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/node_modules\/bass\/schema\/definition\.schema\.json$/m,
    );
    expect(written[0]).toContain("of export.json, imported by bass import glyue");
  });
});

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { RunRecord } from "../../src/engine/types.js";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

const masked = "XXXXXXXXXXXX";
const taxId = "123-45-6789";

const customersCreate = {
  name: "customers.create",
  masks: [{ type: "INPUT", field: "tax_id" }],
  service_requests: [
    {
      formula_variable: "core",
      system: "core",
      field_mappings: [
        { field: "service_path", literal: "/core/v1/persons" },
        { field: "method", literal: "POST" },
        { field: "body.firstName", value: "input.payload.first_name" },
        { field: "body.taxId", value: "input.payload.tax_id" },
      ],
    },
  ],
  on_success_hook: "output.status = 201\noutput.payload = { customer_id: core.response.payload.personId }",
};

const created = { core: { success: true, status: 201, payload: { personId: "P000042", statusCode: 1 } } };

/** A project with customers.create, an input file and a mock file; `files` adds or replaces files. */
function createProject(files: Record<string, string> = {}): string {
  return createTempDir({
    "bass.config.yaml": defaultProjectFile,
    "integrations/customers.create.yaml": stringify(customersCreate),
    "input.json": JSON.stringify({ first_name: "Ada", tax_id: taxId }),
    "mock.json": JSON.stringify(created),
    ...files,
  });
}

const runArgs = ["run", "customers.create", "--input", "input.json", "--mock", "mock.json"];

interface Printed {
  run_id: string;
  status: string;
  output: { status: number; headers: Record<string, string>; payload: unknown };
  history: RunRecord;
}

function historyFiles(dir: string): string[] {
  const folder = join(dir, ".bass", "history");
  return existsSync(folder)
    ? readdirSync(folder).map((name) => readFileSync(join(folder, name), "utf8"))
    : [];
}

describe("bass run", () => {
  it("prints the run as a tree with kind, label, state and duration, then its whole output, and exits 0", async () => {
    const dir = createProject();
    const result = await runCli(runArgs, { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.slice(4)).toEqual(["", "output 201", "{", '  "customer_id": "P000042"', "}"]);
    expect(lines[0]).toMatch(/^[0-9A-Z]{26} customers\.create success \d+ ms cli$/);
    expect(lines[1]).toBe(`├─ 1 INPUT   POST / {"first_name":"Ada","tax_id":"${masked}"}`);
    expect(lines[2]).toMatch(
      /^├─ 2 REQUEST core ✓ 201 \d+ ms → \{"service_path":"\/core\/v1\/persons","method":"POST",.*… ← \{"personId":"P000042","statusCode":1\}$/,
    );
    expect(lines[3]).toBe(`└─ 3 OUTPUT  201 {"customer_id":"P000042"}`);
  });

  it("prints exactly { run_id, status, output, history } with --json, and nothing else", async () => {
    const dir = createProject();
    const result = await runCli([...runArgs, "--json"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const printed = JSON.parse(result.stdout) as Printed;
    expect(Object.keys(printed)).toEqual(["run_id", "status", "output", "history"]);
    expect(result.stdout).toBe(`${JSON.stringify(printed, null, 2)}\n`);
    expect(printed).toMatchObject({
      status: "success",
      output: { status: 201, headers: {}, payload: { customer_id: "P000042" } },
      history: { id: printed.run_id, integration: "customers.create", status: "success", trigger: "cli" },
    });
    expect(printed.history.items.map((item) => item.kind)).toEqual(["INPUT", "REQUEST", "OUTPUT"]);
  });

  it("never prints or writes a masked value", async () => {
    const dir = createProject();
    const tree = await runCli(runArgs, { cwd: dir });
    const json = await runCli([...runArgs, "--json"], { cwd: dir });
    for (const text of [tree.stdout, json.stdout, ...historyFiles(dir)]) {
      expect(text).toContain(masked);
      expect(text).not.toContain(taxId);
    }
  });

  it("never prints or writes a secret from the environment", async () => {
    const token = "env-Token-0042";
    const dir = createProject({
      "bass.config.yaml": `${defaultProjectFile}    headers:\n      X-Token: \${env:BASS_T}\n`,
      "integrations/echo.yaml": stringify({
        name: "echo",
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "headers.X-Token", literal: "${env:BASS_T}" }],
          },
        ],
        on_success_hook:
          "historize('sent ' + t.request.payload.headers['X-Token'])\noutput.payload = input.payload",
      }),
      "input.json": JSON.stringify({ echoed: token }),
    });
    const env = { NO_COLOR: "1", BASS_T: token };
    const tree = await runCli(["run", "echo", "--input", "input.json"], { cwd: dir, env });
    const json = await runCli(["run", "echo", "--input", "input.json", "--json"], { cwd: dir, env });
    expect([tree.code, json.code]).toEqual([0, 0]);
    for (const text of [tree.stdout, tree.stderr, json.stdout, json.stderr, ...historyFiles(dir)]) {
      expect(text).not.toContain(token);
    }
    expect(historyFiles(dir)).toHaveLength(2);
  });

  it("exits 1 when the run ends in failure", async () => {
    const dir = createProject({
      "mock.json": JSON.stringify({
        core: { success: false, status: 503, payload: null, messages: ["down"] },
      }),
    });
    const tree = await runCli(runArgs, { cwd: dir });
    expect(tree.code).toBe(1);
    expect(tree.stdout.split("\n")[0]).toMatch(/ customers\.create failure \d+ ms cli$/);
    expect(tree.stdout).toMatch(/├─ 2 REQUEST core ✗ 503 \d+ ms/);
    const json = await runCli([...runArgs, "--json"], { cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "failure", output: { status: 502 } });
  });

  it.each([
    [{}, "core", ""],
    [{ other: { success: true } }, "core", '; it answers: "other"'],
    // The typo is the file's: its key is what to fix.
    [{ cor: { success: true } }, "core", '; is its key "cor" meant to be "core"?; it answers: "cor"'],
  ])(
    "fails the run when the mock file %j has no answer for the service request",
    async (answers, name, hint) => {
      const dir = createProject({ "mock.json": JSON.stringify(answers) });
      const result = await runCli([...runArgs, "--json"], { cwd: dir });
      expect(result.code).toBe(1);
      const printed = JSON.parse(result.stdout) as Printed;
      const request = printed.history.items.find((item) => item.kind === "REQUEST");
      expect(request?.kind === "REQUEST" && request.response?.messages).toEqual([
        `mock.json has no answer for service request "${name}"${hint}`,
      ]);
      expect(JSON.stringify(printed.output)).toContain(`service request \\"${name}\\"`);
    },
  );

  it("names the item of a call_for_each service request that the mock list does not answer", async () => {
    const dir = createProject({
      "integrations/customers.create.yaml": stringify({
        ...customersCreate,
        service_requests: [{ ...customersCreate.service_requests[0], call_for_each: "[1, 2]" }],
        on_success_hook: null,
      }),
      "mock.json": JSON.stringify({ core: [{ success: true, payload: {} }] }),
    });
    const result = await runCli([...runArgs, "--json"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`mock.json has no answer for service request \\"core[1]\\"`);
  });

  it("reads the input from standard input with --input -", async () => {
    const dir = createProject();
    const result = await runCli(
      ["run", "customers.create", "--input", "-", "--mock", "mock.json", "--json"],
      {
        cwd: dir,
        stdin: JSON.stringify({ first_name: "Grace", tax_id: taxId }),
      },
    );
    expect(result.code).toBe(0);
    const input = (JSON.parse(result.stdout) as Printed).history.items[0];
    expect(input).toMatchObject({
      kind: "INPUT",
      data: { payload: { first_name: "Grace", tax_id: masked } },
    });
  });

  it("reads method, path, params and headers with --input-envelope, masking sensitive headers", async () => {
    const secrets = {
      Authorization: "Bearer t0k3n-abc",
      "Proxy-Authorization": "Basic cHJveHk6cHc=",
      Cookie: "session=s3ss10n",
      "Set-Cookie": "id=c00k1e; Secure",
      "X-Api-Key": "k3y-0123456",
    };
    const dir = createProject({
      "envelope.json": JSON.stringify({
        payload: { first_name: "Ada", tax_id: taxId },
        method: "put",
        path: { id: "7" },
        params: { verbose: "1" },
        headers: { ...secrets, "X-Trace": "trace-1" },
      }),
    });
    const args = [
      "run",
      "customers.create",
      "--input",
      "envelope.json",
      "--input-envelope",
      "--mock",
      "mock.json",
    ];
    const json = await runCli([...args, "--json"], { cwd: dir });
    const tree = await runCli(args, { cwd: dir });
    expect([json.code, tree.code]).toEqual([0, 0]);
    const input = (JSON.parse(json.stdout) as Printed).history.items[0];
    expect(input).toMatchObject({
      kind: "INPUT",
      data: {
        method: "PUT",
        path: { id: "7" },
        params: { verbose: "1" },
        headers: {
          authorization: masked,
          "proxy-authorization": masked,
          cookie: masked,
          "set-cookie": masked,
          "x-api-key": masked,
          "x-trace": "trace-1",
        },
        payload: { first_name: "Ada", tax_id: masked },
      },
    });
    for (const text of [json.stdout, tree.stdout, ...historyFiles(dir)]) {
      for (const value of Object.values(secrets)) expect(text).not.toContain(value);
    }
  });

  it("prints warnings to stderr and still runs", async () => {
    const dir = createProject({
      "integrations/a.yaml": "name: a\ndescription: !custom text\n",
      "input.json": "{}",
    });
    const result = await runCli(["run", "a", "--input", "input.json", "--json"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("warning: integrations/a.yaml:2:14  Unresolved tag: !custom  (yaml-syntax)\n");
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "success" });
  });

  it("leaves a record that bass history lists and shows", async () => {
    const dir = createProject();
    const run = JSON.parse((await runCli([...runArgs, "--json"], { cwd: dir })).stdout) as Printed;
    const list = await runCli(["history", "--json"], { cwd: dir });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([run.history]);
    const rows = await runCli(["history"], { cwd: dir });
    expect(rows.stdout).toMatch(new RegExp(`^${run.run_id} +customers\\.create +success `, "m"));
    const show = await runCli(["history", "show", run.run_id, "--json"], { cwd: dir });
    expect(JSON.parse(show.stdout)).toEqual(run.history);
  });
});

describe("bass run refuses with exit 2", () => {
  const definitionWithFinding = stringify({ name: "customers.create", descripton: "typo" });

  it.each([
    [
      "an unknown integration name",
      ["run", "customers.delete", "--input", "input.json"],
      {},
      /no integration named customers\.delete/,
    ],
    [
      "a missing input file",
      ["run", "customers.create", "--input", "missing.json"],
      {},
      /cannot read the input file missing\.json/,
    ],
    [
      "input that is not JSON, naming file:line:col",
      runArgs,
      { "input.json": '{\n  "first_name": "Ada",\n  "tax_id" "x"\n}\n' },
      /^bass: input\.json:3:12: not valid JSON/,
    ],
    [
      "input that ends too soon, naming file:line:col",
      runArgs,
      { "input.json": '{\n  "first_name": "Ada"' },
      /^bass: input\.json:2:22: not valid JSON/,
    ],
    [
      "an envelope that is not an object",
      [...runArgs, "--input-envelope"],
      { "input.json": "[1]" },
      /input\.json: an input envelope is an object/,
    ],
    [
      "an envelope with an unknown key",
      [...runArgs, "--input-envelope"],
      { "input.json": '{ "payload": {}, "body": {} }' },
      /unknown envelope key "body"/,
    ],
    [
      "an envelope whose headers are not an object",
      [...runArgs, "--input-envelope"],
      { "input.json": '{ "payload": {}, "headers": ["a"] }' },
      /envelope headers must be an object/,
    ],
    [
      "an envelope whose method is not a string",
      [...runArgs, "--input-envelope"],
      { "input.json": '{ "payload": {}, "method": 1 }' },
      /envelope method must be a string/,
    ],
    [
      "a definition with an error finding, listing it at file:line:col",
      runArgs,
      { "integrations/customers.create.yaml": definitionWithFinding },
      /integrations\/customers\.create\.yaml:2:1 .*descripton.*\(schema-unknown-key\)/,
    ],
    [
      "a live run whose system needs an unset ${env:X}, naming it and its line",
      ["run", "customers.create", "--input", "input.json"],
      { "bass.config.yaml": `${defaultProjectFile}    headers:\n      X-Token: \${env:BASS_UNSET}\n` },
      /the project's systems cannot start until these are set[\s\S]*bass\.config\.yaml:8:\d+ .*BASS_UNSET/,
    ],
    [
      "an inactive integration",
      runArgs,
      { "integrations/customers.create.yaml": stringify({ ...customersCreate, active: false }) },
      /not active/,
    ],
    [
      "a missing mock file",
      ["run", "customers.create", "--input", "input.json", "--mock", "nope.json"],
      {},
      /cannot read the mock file nope\.json/,
    ],
    [
      "a mock file of the wrong shape",
      runArgs,
      { "mock.json": '{ "core": { "status": 201 } }' },
      /mock\.json: core needs success/,
    ],
    ["an unknown option", [...runArgs, "--fast"], {}, /unknown option '--fast'/],
  ] as const)("on %s", async (_title, argv, files, message) => {
    const dir = createProject(files);
    const result = await runCli(argv, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(historyFiles(dir)).toEqual([]);
  });

  it("when a system's adapter module cannot be loaded, before the run starts", async () => {
    const dir = createProject({
      "bass.config.yaml": "systems:\n  core:\n    adapter: ./adapters/missing.js\n",
    });
    const result = await runCli(["run", "customers.create", "--input", "input.json"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/core.*adapters\/missing\.js/);
    expect(historyFiles(dir)).toEqual([]);
  });
});

describe("a system's unset variable", () => {
  it("does not stop a --mock run, which never calls the system: it is a warning", async () => {
    const dir = createProject({
      "bass.config.yaml": `${defaultProjectFile}    headers:\n      X-Token: \${env:BASS_UNSET}\n`,
    });
    const result = await runCli([...runArgs, "--json"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: bass\.config\.yaml:8:\d+ .*BASS_UNSET/);
  });
});

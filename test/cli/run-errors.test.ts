import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createRunId } from "../../src/engine/run-id.js";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

const taxId = "123-45-6789";

function project(definition: Record<string, unknown>, input: unknown, mock: unknown = {}): string {
  return createTempDir({
    "bass.config.yaml": defaultProjectFile,
    "integrations/a.yaml": stringify({ name: "a", ...definition }),
    "input.json": typeof input === "string" ? input : JSON.stringify(input),
    "mock.json": JSON.stringify(mock),
  });
}

function historyText(dir: string): string {
  const folder = join(dir, ".bass", "history");
  return existsSync(folder)
    ? readdirSync(folder)
        .map((name) => readFileSync(join(folder, name), "utf8"))
        .join("\n")
    : "";
}

describe("bass run", () => {
  it("names file:line:col for every input that is not JSON", async () => {
    const dir = project({}, '{\n  "a": }\n');
    const result = await runCli(["run", "a", "--input", "input.json"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bass: input\.json:2:\d+: not valid JSON/);
  });

  it.each(["data", "info", "kind", createRunId().slice(0, 5)])(
    "prints and stores a run whose masked value is %j",
    async (value) => {
      const dir = project(
        { masks: [{ type: "INPUT", field: "v" }], on_success_hook: "console.log('hello')" },
        { v: value },
      );
      const result = await runCli(["run", "a", "--input", "input.json"], { cwd: dir });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/├─ 2 LOG +info: hello/);
    },
  );

  it.each([
    ["an absolute path", (dir: string, name: string) => join(dir, name, "history")],
    ["a path ending in /", (dir: string, name: string) => `${join(dir, name, "history")}/`],
    ["a relative path", (_dir: string, name: string) => `./${name}/history/`],
  ])(
    "never prints a history folder from the environment given as %s, when it cannot be written or read",
    async (_, value) => {
      const secret = "vault-7f3a9c";
      const dir = createTempDir({
        "bass.config.yaml": `${defaultProjectFile}history:\n  dir: \${env:HISTORY_DIR}\n`,
        "integrations/a.yaml": stringify({ name: "a" }),
        "input.json": "{}",
        [secret]: "a file, not a folder",
      });
      const env = { NO_COLOR: "1", HISTORY_DIR: value(dir, secret) };
      const run = await runCli(["run", "a", "--input", "input.json"], { cwd: dir, env });
      const history = await runCli(["history"], { cwd: dir, env });
      for (const result of [run, history]) {
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain("history folder");
        expect(result.stderr).toContain("history.dir of the project file");
        expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
      }
    },
  );

  it("masks the input of a run whose before_hook throws, in the tree and in history", async () => {
    const dir = project(
      { masks: [{ type: "INPUT", field: "tax_id" }], before_hook: "throw new Error('no')" },
      { tax_id: taxId },
    );
    const result = await runCli(["run", "a", "--input", "input.json"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain(taxId);
    expect(historyText(dir)).not.toContain(taxId);
  });

  it("shows the message that names the service request a mock file does not answer", async () => {
    const dir = project(
      {
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            field_mappings: [
              { field: "service_path", literal: "/core/v1/persons" },
              { field: "method", literal: "POST" },
            ],
          },
        ],
      },
      {},
      {},
    );
    const result = await runCli(["run", "a", "--input", "input.json", "--mock", "mock.json"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('no answer for service request "core"');
  });
});

describe("an adapter module that cannot be loaded", () => {
  const secretProject = () =>
    createTempDir({
      "bass.config.yaml":
        'integrations: integrations\nsystems:\n  core:\n    adapter: ${env:ADAPTER_PATH}\n    headers: { Authorization: "${env:CORE_TOKEN}" }\n',
      "integrations/a.yaml": stringify({
        name: "a",
        service_requests: [{ formula_variable: "c", system: "core" }],
      }),
      "input.json": "{}",
      "broken.mjs": "throw new Error(`cannot start with ${process.env.CORE_TOKEN}`);\n",
      "a.test.yaml": stringify({ integration: "a", cases: [{ name: "live", input: {} }] }),
    });

  it.each([
    ["run", ["run", "a", "--input", "input.json"]],
    ["test", ["test"]],
    ["serve", ["serve", "--port", "0"]],
  ])("%s names the system without the secrets its error quotes", async (_, argv) => {
    for (const adapterPath of ["./broken.mjs", "./missing-secret-adapter.mjs"]) {
      const dir = secretProject();
      const env = { ADAPTER_PATH: adapterPath, CORE_TOKEN: "hunter22-token" };
      const result = await runCli(argv, { cwd: dir, env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("system core");
      expect(result.stderr).toContain("XXXXXXXXXXXX");
      expect(result.stdout + result.stderr).not.toContain("hunter22-token");
      expect(result.stdout + result.stderr).not.toContain(adapterPath);
    }
  });
});

describe("a request_schema serve could not compile", () => {
  it("fails validate and serve, and leaves run and test alone, which do not use it", async () => {
    const dir = project(
      { request_schema: { type: 12 }, on_success_hook: "output.payload = { ok: true }" },
      {},
    );
    const validate = await runCli(["validate"], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain("request-schema");
    const run = await runCli(["run", "a", "--input", "input.json", "--json"], { cwd: dir });
    expect([run.code, JSON.parse(run.stdout).output.payload]).toEqual([0, { ok: true }]);
    const serve = await runCli(["serve", "--port", "0"], { cwd: dir });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain("request_schema is not a JSON Schema 2020-12");
  });
});

describe("a broken definition beside the one run", () => {
  it("does not stop bass run of another integration", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/good.yaml": 'name: good\non_success_hook: "output.payload = { ok: true }"\n',
      "integrations/bad.yaml": "name: bad\nservice_requests:\n  - { formula_variable: x, system: nope }\n",
      "input.json": "{}",
    });
    const good = await runCli(["run", "good", "--input", "input.json", "--json"], { cwd: dir });
    expect([good.code, JSON.parse(good.stdout).output.payload]).toEqual([0, { ok: true }]);
    const bad = await runCli(["run", "bad", "--input", "input.json"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no system "nope"');
  });
});

describe("a name bass does not know", () => {
  it("gets the nearest known one and the known names, and a file whose name bass could not read is named", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/customers.create.yaml": "name: customers.create\n",
      "integrations/customers.retrieve.yaml": "name: customers.retrieve\n",
      "integrations/broken.yaml": "name: [unclosed\n",
      "input.json": "{}",
    });
    const run = await runCli(["run", "customers.craete", "--input", "input.json"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'bass: no integration named customers.craete in the project; did you mean "customers.create"?; known: "customers.create", "customers.retrieve"; integrations/broken.yaml has no name bass could read (bass validate shows why)\n',
    );
    const history = await runCli(["history", "shwo"], { cwd: dir });
    expect(history.code).toBe(2);
    expect(history.stderr).toContain('bass history has no subcommand shwo; did you mean "show"?');
  });
});

describe("the request of bass run, from flags", () => {
  const dir = () =>
    createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/echo.yaml": `name: echo
endpoints:
  - { method: GET, path: "/things/{id}" }
on_success_hook: "output.payload = { method: input.method, path: input.path, params: input.params, auth: input.headers['x-client'] ?? null, payload: input.payload }"
`,
      "envelope.json": JSON.stringify({ method: "GET", params: { a: "1" }, payload: {} }),
    });

  it("needs no input file, and takes --method, --query, --path and --header, repeated", async () => {
    const run = await runCli(
      [
        "run",
        "echo",
        "--method",
        "post",
        "--query",
        "a=1",
        "--query",
        "b=x=y",
        "--path",
        "id=7",
        "--header",
        "X-Client: web",
        "--json",
      ],
      { cwd: dir() },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).output.payload).toEqual({
      method: "POST",
      path: { id: "7" },
      params: { a: "1", b: "x=y" },
      auth: "web",
      payload: {},
    });
  });

  it("warns when an envelope is taken as a body, and lays the flags over an envelope", async () => {
    const folder = dir();
    const plain = await runCli(["run", "echo", "--input", "envelope.json", "--json"], { cwd: folder });
    expect(plain.stderr).toContain("envelope.json looks like an input envelope");
    expect(plain.stderr).toContain("give --input-envelope");
    const enveloped = await runCli(
      ["run", "echo", "--input", "envelope.json", "--input-envelope", "--query", "b=2", "--json"],
      { cwd: folder },
    );
    expect(enveloped.stderr).toBe("");
    expect(JSON.parse(enveloped.stdout).output.payload.params).toEqual({ a: "1", b: "2" });
  });

  it("refuses a flag without its separator", async () => {
    const run = await runCli(["run", "echo", "--header", "X-Client"], { cwd: dir() });
    expect([run.code, run.stderr]).toEqual([2, 'bass: --header takes "Name: value", not "X-Client"\n']);
  });
});

describe("one name for one idea", () => {
  const dir = () =>
    createTempDir({
      "bass.config.yaml": "systems:\n  core:\n    adapter: echo\n",
      "integrations/a.yaml":
        'name: a\nservice_requests:\n  - { formula_variable: core, system: core }\non_success_hook: "output.payload = core.response.payload"\n',
      "a.test.yaml": "integration: a\ncases:\n  - name: c\n",
    });

  it("takes --format json on run, test and history, as --json and --reporter json", async () => {
    const folder = dir();
    const run = await runCli(["run", "a", "--format", "json"], { cwd: folder });
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "success" });
    const test = await runCli(["test", "--format", "json"], { cwd: folder });
    expect(JSON.parse(test.stdout).summary).toMatchObject({ total: 1, passed: 1 });
    const list = await runCli(["history", "--format", "json"], { cwd: folder });
    const records = JSON.parse(list.stdout) as { id: string }[];
    expect(records.length).toBeGreaterThan(0);
    const show = await runCli(["history", "show", records[0]?.id ?? "", "--format", "json"], { cwd: folder });
    expect(JSON.parse(show.stdout).id).toBe(records[0]?.id);
  });

  it("reads --mock - from standard input, and refuses --input - beside it", async () => {
    const folder = dir();
    const mocked = await runCli(["run", "a", "--mock", "-", "--json"], {
      cwd: folder,
      stdin: '{ "core": { "success": true, "payload": { "from": "stdin" } } }',
    });
    expect(JSON.parse(mocked.stdout).output.payload).toEqual({ from: "stdin" });
    const both = await runCli(["run", "a", "--mock", "-", "--input", "-"], { cwd: folder, stdin: "{}" });
    expect([both.code, both.stderr]).toEqual([
      2,
      "bass: --input and --mock cannot both read standard input; give one of them a file\n",
    ]);
  });
});

describe("bass run --verbose", () => {
  it("prints every item's data as YAML under the tree, masked as the record is", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  core:\n    adapter: echo\n",
      "integrations/a.yaml":
        'name: a\nmasks:\n  - { type: INPUT, field: secret }\nservice_requests:\n  - { formula_variable: core, system: core }\non_success_hook: "output.payload = { ok: true }"\n',
    });
    const run = await runCli(["run", "a", "--query", "q=1", "--verbose", "--input", "-"], {
      cwd: dir,
      stdin: '{ "secret": "s3cr3t-verbose-1" }',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("s3cr3t-verbose-1");
    expect(run.stdout).toMatch(/\n1 INPUT \S+\n {4}data:\n {6}payload:\n {8}secret: XXXXXXXXXXXX\n/);
    expect(run.stdout).toMatch(/\n2 REQUEST core \S+\n {4}label: core\n/);
    expect(run.stdout).toContain("      fullpath: /?q=1\n");
  });
});

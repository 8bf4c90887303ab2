import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { AdapterResponse } from "../../src/adapters/adapter.js";
import type { Item, RunRecord } from "../../src/engine/types.js";
import { promoteRun } from "../../src/testing/promote.js";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";
import { aRecord, outputItem, recordedAt } from "../_records.js";

const at = recordedAt;
const id = "01JD8X4ZQ5M2V7K3N9P6R1T0WY";
const masked = "XXXXXXXXXXXX";

const input: Item = {
  seq: 1,
  at,
  kind: "INPUT",
  data: {
    method: "POST",
    fullpath: "/api/v1/customers?dry=1",
    path: { id: "7" },
    params: { dry: "1" },
    headers: { "x-request-id": "r1" },
    payload: { first_name: "Ada", tax_id: masked },
  },
};

function request(seq: number, label: string, sridx: number | null, response: AdapterResponse | null): Item {
  return {
    seq,
    at,
    kind: "REQUEST",
    label,
    sridx,
    duration_ms: 1,
    request: { service_name: "n/a", payload: { body: { n: seq } } },
    response,
  };
}

const output = outputItem;

function record(status: RunRecord["status"], items: Item[]): RunRecord {
  return aRecord({ id, status, trigger: "cli", duration_ms: 3, items });
}

const ok = (payload: unknown): AdapterResponse => ({ success: true, status: 200, payload, messages: [] });

describe("promoteRun", () => {
  it("makes a case of a synchronous run: its input, its adapters' answers as mocks, its state and output", () => {
    const run = record("success", [
      input,
      request(2, "core", null, {
        success: true,
        status: 201,
        payload: { personId: "P1" },
        messages: ["created"],
      }),
      request(3, "crm", null, { success: true, payload: "done", messages: [] }),
      { seq: 4, at, kind: "LOG", level: "info", data: "hello" },
      output(5, { status: 201, payload: { customer_id: "P1" } }),
    ]);
    expect(promoteRun(run)).toEqual({
      name: `run ${id} of 2026-01-02`,
      input: {
        payload: { first_name: "Ada", tax_id: masked },
        method: "POST",
        path: { id: "7" },
        params: { dry: "1" },
        headers: { "x-request-id": "r1" },
      },
      mocks: {
        core: { success: true, status: 201, payload: { personId: "P1" }, messages: ["created"] },
        crm: { success: true, payload: "done" },
      },
      expect: { state: "success", output: { status: 201, payload: { customer_id: "P1" } } },
    });
  });

  it("leaves out the transport's headers, and the headers when nothing else is left", () => {
    const headersOf = (headers: Record<string, string>) => {
      const data = { ...(input.kind === "INPUT" ? input.data : {}), headers };
      return promoteRun(record("success", [{ ...input, data } as Item])).input;
    };
    const curl = {
      host: "127.0.0.1:3000",
      "user-agent": "curl/8.5.0",
      "content-length": "42",
      accept: "*/*",
    };
    expect(headersOf({ ...curl, "x-request-id": "r1", Connection: "keep-alive" })?.headers).toEqual({
      accept: "*/*",
      "x-request-id": "r1",
    });
    expect(headersOf({ host: "127.0.0.1:3000", "content-length": "2" })).not.toHaveProperty("headers");
  });

  it("keeps output headers when the run set some", () => {
    const run = record("success", [
      input,
      output(2, { headers: { "content-type": "text/csv" }, payload: "a,b" }),
    ]);
    expect(promoteRun(run).expect?.output).toEqual({
      status: 200,
      headers: { "content-type": "text/csv" },
      payload: "a,b",
    });
  });

  it("answers a call_for_each service request with a list by sridx, null where an item was skipped", () => {
    const run = record("success", [
      input,
      request(2, "core", 0, ok("a")),
      request(3, "core", 2, ok("c")),
      request(4, "core", 3, ok("d")),
      request(5, "other", 1, ok("x")),
      output(6, {}),
    ]);
    expect(promoteRun(run).mocks).toEqual({
      core: [
        { success: true, status: 200, payload: "a" },
        null,
        { success: true, status: 200, payload: "c" },
        { success: true, status: 200, payload: "d" },
      ],
      other: [null, { success: true, status: 200, payload: "x" }],
    });
  });

  it("leaves out a call that never reached its adapter, and gives no mocks when no adapter answered", () => {
    const run = record("failure", [input, request(2, "core", null, null), output(3, { status: 500 })]);
    const promoted = promoteRun(run);
    expect(promoted).not.toHaveProperty("mocks");
    expect(promoted.expect).toEqual({ state: "failure", output: { status: 500, payload: null } });
  });

  it("makes a case of a failed run with the adapter's failure as its answer", () => {
    const failure: AdapterResponse = {
      success: false,
      status: 503,
      payload: { errorCode: "DOWN" },
      messages: ["503 Service Unavailable"],
    };
    const run = record("failure", [
      input,
      request(2, "core", null, failure),
      { seq: 3, at, kind: "FAILURE", error: { code: "adapter_failed", message: "core failed" } },
      output(4, { status: 502, payload: { error: { code: "bad_gateway" } } }),
    ]);
    const promoted = promoteRun(run);
    expect(promoted.mocks).toEqual({ core: failure });
    expect(promoted.expect).toEqual({
      state: "failure",
      output: { status: 502, payload: { error: { code: "bad_gateway" } } },
    });
  });

  it("expects only the state of a run that recorded no output or no input", () => {
    const promoted = promoteRun(record("success", [request(1, "core", null, ok(1))]));
    expect(promoted).not.toHaveProperty("input");
    expect(promoted.expect).toEqual({ state: "success" });
  });
});

const greet = `name: greet
masks:
  - type: INPUT
    field: secret
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - field: body.name
        value: input.payload.name
      - field: body.secret
        value: input.payload.secret
on_success_hook: |
  output.status = 201
  output.payload = { hello: t.response.payload.body.name, secret: input.payload.secret }
`;

const batch = `name: batch
service_requests:
  - formula_variable: core
    system: core
    call_for_each: input.payload.ids
    call_if: sritem !== 'skip'
    field_mappings:
      - field: service_path
        value: "'/core/v1/persons/' + sritem"
      - field: method
        literal: GET
on_success_hook: |
  output.payload = core.map((call) => call && call.response.payload.firstName)
`;

const secret = "s3cr3t-value-91";

/** A project with greet (echo, a masked secret no rule checks) and batch; runs one and answers its id. */
async function runOnce(name: string, payload: unknown, args: string[] = []) {
  const dir = createTempDir({
    "bass.config.yaml": defaultProjectFile,
    "integrations/greet.yaml": greet,
    "integrations/batch.yaml": batch,
    "input.json": JSON.stringify(payload),
    "mocks.json": JSON.stringify({
      core: [
        { success: true, status: 200, payload: { firstName: "Ada" } },
        null,
        { success: true, status: 200, payload: { firstName: "Grace" } },
      ],
    }),
  });
  const run = await runCli(["run", name, "--input", "input.json", "--json", ...args], { cwd: dir });
  expect(run.code).toBe(0);
  const printed = JSON.parse(run.stdout) as { run_id: string; history: RunRecord };
  return { dir, runId: printed.run_id, day: printed.history.started_at.slice(0, 10) };
}

describe("bass history promote", () => {
  it("writes a $schema comment that resolves from the test file's own folder", async () => {
    const { dir, runId } = await runOnce("greet", { name: "Ada", secret });
    const out = join("tests", "deep", "t.test.yaml");
    mkdirSync(join(dir, "tests", "deep"), { recursive: true });
    const promoted = await runCli(["history", "promote", runId, "--out", out], { cwd: dir });
    expect(promoted.code).toBe(0);
    const first = readFileSync(join(dir, out), "utf8").split("\n", 1)[0] ?? "";
    const schema = /\$schema=(.+)$/.exec(first)?.[1] ?? "";
    expect(schema).not.toMatch(/^\//);
    const resolved = resolve(dir, "tests", "deep", schema);
    expect(existsSync(resolved)).toBe(true);
    expect(JSON.parse(readFileSync(resolved, "utf8")).$id ?? resolved).toContain("test");
  });

  it("promotes a run to a test file that bass test passes, and holds no masked value", async () => {
    const { dir, runId, day } = await runOnce("greet", { name: "Ada", secret });
    const promoted = await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir });
    expect(promoted.stderr).toBe("");
    expect(promoted.code).toBe(0);
    const name = `run ${runId} of ${day}`;
    expect(promoted.stdout).toBe(`added case ${JSON.stringify(name)} to t.test.yaml\n`);

    const text = readFileSync(join(dir, "t.test.yaml"), "utf8");
    expect(text).not.toContain(secret);
    expect(text.startsWith("# yaml-language-server: $schema=")).toBe(true);
    expect(parseYaml(text)).toEqual({
      integration: "greet",
      cases: [
        {
          name,
          input: {
            payload: { name: "Ada", secret: masked },
            method: "POST",
            path: {},
            params: {},
          },
          mocks: { t: { success: true, payload: { body: { name: "Ada", secret: masked } } } },
          expect: { state: "success", output: { status: 201, payload: { hello: "Ada", secret: masked } } },
        },
      ],
    });

    const tested = await runCli(["test", "t.test.yaml"], { cwd: dir });
    expect(tested.stdout).toMatch(/\n1 passed, 0 failed /);
    expect(tested.code).toBe(0);
  });

  it("refuses to promote the same run twice into one file (exit 2) and leaves the file as it was", async () => {
    const { dir, runId } = await runOnce("greet", { name: "Ada", secret });
    expect((await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir })).code).toBe(0);
    const before = readFileSync(join(dir, "t.test.yaml"), "utf8");
    const again = await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^bass: t\.test\.yaml already has the case "run \w{26} of [\d-]+"\n$/);
    expect(readFileSync(join(dir, "t.test.yaml"), "utf8")).toBe(before);
  });

  it("adds a second run as a second case of the same file, and both pass", async () => {
    const { dir, runId } = await runOnce("greet", { name: "Ada", secret });
    const second = await runCli(["run", "greet", "--input", "input.json", "--json"], { cwd: dir });
    const secondId = (JSON.parse(second.stdout) as { run_id: string }).run_id;
    for (const run of [runId, secondId])
      expect((await runCli(["history", "promote", run, "--out", "t.test.yaml"], { cwd: dir })).code).toBe(0);
    const file = parseYaml(readFileSync(join(dir, "t.test.yaml"), "utf8")) as { cases: { name: string }[] };
    expect(file.cases.map((testCase) => testCase.name.split(" ")[1])).toEqual([runId, secondId]);
    const tested = await runCli(["test", "t.test.yaml"], { cwd: dir });
    expect(tested.stdout).toMatch(/\n2 passed, 0 failed /);
  });

  it("promotes a call_for_each run with a skipped item to a mock list by sridx that bass test passes", async () => {
    const { dir, runId } = await runOnce("batch", { ids: ["P1", "skip", "P3"] }, ["--mock", "mocks.json"]);
    expect((await runCli(["history", "promote", runId, "--out", "b.test.yaml"], { cwd: dir })).code).toBe(0);
    const file = parseYaml(readFileSync(join(dir, "b.test.yaml"), "utf8")) as {
      cases: { mocks: unknown; expect: unknown }[];
    };
    expect(file.cases[0]?.mocks).toEqual({
      core: [
        { success: true, status: 200, payload: { firstName: "Ada" } },
        null,
        { success: true, status: 200, payload: { firstName: "Grace" } },
      ],
    });
    expect(file.cases[0]?.expect).toEqual({
      state: "success",
      output: { status: 200, payload: ["Ada", null, "Grace"] },
    });
    const tested = await runCli(["test", "b.test.yaml"], { cwd: dir });
    expect(tested.code).toBe(0);
  });

  it("prints the case as a test file without --out", async () => {
    const { dir, runId } = await runOnce("greet", { name: "Ada", secret });
    const printed = await runCli(["history", "promote", runId], { cwd: dir });
    expect(printed.code).toBe(0);
    expect(printed.stdout).not.toContain(secret);
    expect(parseYaml(printed.stdout)).toMatchObject({
      integration: "greet",
      cases: [{ name: expect.any(String) }],
    });
  });

  it.each([
    [
      "a file of another integration",
      "integration: batch\ncases: []\n",
      /t\.test\.yaml tests batch, and run \w{26} is of greet/,
    ],
    ["a file without a list of cases", "integration: greet\n", /t\.test\.yaml has no list of cases/],
  ])("refuses to add a case to %s (exit 2)", async (_label, existing, message) => {
    const { dir, runId } = await runOnce("greet", { name: "Ada", secret });
    writeFileSync(join(dir, "t.test.yaml"), existing);
    const result = await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readFileSync(join(dir, "t.test.yaml"), "utf8")).toBe(existing);
  });

  it.each([
    ["not a run id", "../../etc/passwd", /is not a run id/],
    ["an id of no run", "01JD8X4ZQ5M2V7K3N9P6R1T0WY", /no run 01JD8X4ZQ5M2V7K3N9P6R1T0WY in the history/],
  ])("refuses %s (exit 2)", async (_label, runId, message) => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile });
    const result = await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/record.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir, runCli } from "../_helpers.js";

const stuck = `name: stuck
language: python
endpoints: [{ method: POST, path: /stuck }]
on_success_hook: |
  output.payload = sum(range(10**12))
`;
const quick = `name: quick
language: python
endpoints: [{ method: POST, path: /quick }]
on_success_hook: |
  output.payload = {"ok": True}
`;

describe("Python integrations in serve's worker threads", () => {
  it("ends a worker whose cell is stuck in one long call past its deadline: 504, and the next run is answered", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        "systems: {}\nlimits:\n  cell_timeout_ms: 200\n  run_timeout_ms: 300\nserve:\n  workers: 1\n",
      "integrations/stuck.yaml": stuck,
      "integrations/quick.yaml": quick,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const post = (url: string) =>
      app.handle({ method: "POST", url, headers: { host: "127.0.0.1:3000" }, body: new Uint8Array() });
    const stopped = await post("/stuck");
    expect(stopped.status).toBe(504);
    await app.history.flush();
    const record = (await app.history.read(stopped.runId as string)) as RunRecord;
    expect(record.items).toEqual([
      expect.objectContaining({
        kind: "FAILURE",
        error: {
          code: "cell_timeout",
          message:
            "a Python cell ran past its time limit inside a call nothing could interrupt: its worker thread was ended and replaced",
        },
      }),
    ]);
    const after = await post("/quick");
    expect([after.status, JSON.parse(Buffer.from(after.body).toString())]).toEqual([200, { ok: true }]);
  }, 30_000);
});

describe("callint and calladapter in Python cells under serve", () => {
  it("calls a system and other integrations through serve's thread, the embedded mock core too", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        'systems:\n  echo:\n    adapter: echo\n  core:\n    adapter: http\n    base_url: "mockcore:"\nserve:\n  workers: 1\n',
      "integrations/person.yaml": `name: person
http_api: false
service_requests:
  - formula_variable: core
    system: core
    service_name: get-person
    field_mappings:
      - { field: service_path, value: "'/core/v1/persons/' + input.payload.id" }
      - { field: method, literal: GET }
on_success_hook: |
  output.payload = { name: core.response.payload.firstName }
`,
      "integrations/parent.yaml": `name: parent
language: python
endpoints: [{ method: POST, path: /parent }]
on_success_hook: |
  echoed = calladapter("echo", "echo-it", {"a": 1}, label="echoed")
  child = callint("person", {"id": "P000001"})
  output.payload = {"echoed": echoed.response.payload.a, "child": child.status, "name": child.payload.name}
`,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const reply = await app.handle({
      method: "POST",
      url: "/parent",
      headers: { host: "127.0.0.1:3000" },
      body: new Uint8Array(),
    });
    expect([reply.status, JSON.parse(Buffer.from(reply.body).toString())]).toEqual([
      200,
      { echoed: 1, child: 200, name: "Ada" },
    ]);
    await app.history.flush();
    const parent = (await app.history.read(reply.runId as string)) as RunRecord;
    expect(parent.items.map((item) => item.kind)).toEqual(["INPUT", "REQUEST", "CALLINT", "OUTPUT"]);
    const callint = parent.items.find((item) => item.kind === "CALLINT");
    const child = await app.history.read((callint as { run_id: string }).run_id);
    expect(child).toMatchObject({
      integration: "person",
      trigger: "callint",
      parent_run: parent.id,
      status: "success",
    });
  }, 30_000);
});

describe("a Python cell waiting for a call", () => {
  it("gives up at its own time limit, and its worker goes on answering", async () => {
    const dir = createTempDir({
      "slow.mjs":
        "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 3000));\n  return { success: true, status: 200, payload: { late: true }, messages: [] };\n}\n",
      "bass.config.yaml":
        "systems:\n  slow:\n    adapter: ./slow.mjs\nlimits:\n  cell_timeout_ms: 300\n  run_timeout_ms: 10000\nserve:\n  workers: 1\n",
      "integrations/lookup.yaml":
        "name: lookup\nhttp_api: false\nservice_requests:\n  - { formula_variable: found, system: slow }\n",
      "integrations/parent.yaml": `name: parent
language: python
endpoints: [{ method: POST, path: /parent }]
on_success_hook: |
  output.payload = callint("lookup", {}).payload
`,
      "integrations/quick.yaml": quick,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const post = (url: string) =>
      app.handle({ method: "POST", url, headers: { host: "127.0.0.1:3000" }, body: new Uint8Array() });
    const timedOut = await post("/parent");
    expect(timedOut.status, Buffer.from(timedOut.body).toString()).toBe(504);
    await app.history.flush();
    const record = (await app.history.read(timedOut.runId as string)) as RunRecord;
    expect(record.items.find((item) => item.kind === "FAILURE")).toMatchObject({
      error: { code: "cell_timeout", message: "parent: on_success_hook: the cell ran past its time limit" },
    });
    // The same worker answers: it was not ended as stuck.
    const after = await post("/quick");
    expect([after.status, JSON.parse(Buffer.from(after.body).toString())]).toEqual([200, { ok: true }]);
  }, 30_000);
});

describe("Python integrations under bass run and bass test", () => {
  it("run in a worker thread, their calladapter and callint answered by bass's own thread", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  echo:\n    adapter: echo\n",
      "integrations/child.yaml":
        "name: child\nhttp_api: false\non_success_hook: |\n  output.payload = { doubled: input.payload.n * 2 }\n",
      "integrations/parent.yaml": `name: parent
language: python
on_success_hook: |
  echoed = calladapter("echo", "echo-it", {"n": input.payload.n}, label="echoed")
  child = callint("child", {"n": echoed.response.payload.n})
  output.payload = {"doubled": child.payload.doubled}
`,
      "tests/parent.test.yaml": `integration: parent
cases:
  - name: doubles through a child
    input: { payload: { n: 21 } }
    expect:
      output: { status: 200, payload: { doubled: 42 } }
      items:
        - { kind: INPUT }
        - { kind: REQUEST, label: echoed }
        - { kind: CALLINT, integration: child, status: success }
        - { kind: OUTPUT }
`,
    });
    const run = await runCli(["run", "parent", "--input", "-", "--json"], { cwd: dir, stdin: '{"n":4}' });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).output.payload).toEqual({ doubled: 8 });
    const test = await runCli(["test"], { cwd: dir });
    expect(test.stdout).toMatch(/1 passed, 0 failed/);
  }, 60_000);
});

import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir, runCli } from "../_helpers.js";

const stuck = `name: stuck
language: python
endpoints: [{ method: POST, path: /stuck }]
on_success_hook: |
  output.payload = sum(range(10**12))
on_failure_hook: |
  debug("not run: a cell stuck in a state hook leaves finally_hook only")
finally_hook: |
  debug("finally_hook ran", "after")
`;
const stuckEarly = `name: stuck-early
language: python
endpoints: [{ method: POST, path: /stuck-early }]
before_hook: |
  sum(range(10**12))
on_failure_hook: |
  output.status = 503
  output.payload = {"code": output.payload.error.code, "from": "on_failure_hook", "name": input.payload.name}
`;
const quick = `name: quick
language: python
endpoints: [{ method: POST, path: /quick }]
on_success_hook: |
  output.payload = {"ok": True}
`;

type ServeApp = Awaited<ReturnType<typeof createServeApp>>;

/** serve's handler over a project of these files, closed when the test ends. */
async function serveProject(files: Record<string, string>): Promise<ServeApp> {
  const dir = createTempDir(files);
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
  onTestFinished(() => app.close());
  return app;
}

/** A POST to serve's handler, with `payload` as its JSON body when there is one. */
function post(app: ServeApp, url: string, payload?: unknown) {
  const json = payload !== undefined;
  return app.handle({
    method: "POST",
    url,
    headers: { host: "127.0.0.1:3000", ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? Buffer.from(JSON.stringify(payload)) : new Uint8Array(),
  });
}

/** An answer's status and JSON body. */
function statusAndBody(reply: { status: number; body: string | Uint8Array }): [number, unknown] {
  return [reply.status, JSON.parse(Buffer.from(reply.body).toString())];
}

/** A run's record, once serve's history has written it. */
async function recordOf(app: ServeApp, runId: string | undefined): Promise<RunRecord> {
  await app.history.flush();
  return (await app.history.read(runId as string)) as RunRecord;
}

describe("Python integrations in serve's worker threads", () => {
  it("ends a worker whose cell is stuck in one long call past its deadline: 504, and the next run is answered", async () => {
    const app = await serveProject({
      "bass.config.yaml":
        "systems: {}\nlimits:\n  cell_timeout_ms: 200\n  run_timeout_ms: 300\nserve:\n  workers: 1\n",
      "integrations/stuck.yaml": stuck,
      "integrations/quick.yaml": quick,
    });
    const stopped = await post(app, "/stuck");
    expect(stopped.status).toBe(504);
    const record = await recordOf(app, stopped.runId);
    // The record names the stuck cell, and holds the answer the caller got.
    expect(record.items).toEqual([
      expect.objectContaining({ kind: "INPUT" }),
      expect.objectContaining({
        kind: "FAILURE",
        error: {
          code: "cell_timeout",
          message:
            "stuck: on_success_hook: a cell ran past its time limit inside a call nothing could interrupt: its worker thread was ended and replaced",
          cell: "on_success_hook",
          file: "integrations/stuck.yaml",
          line: 4,
        },
      }),
      expect.objectContaining({ kind: "DEBUG", label: "after", data: "finally_hook ran" }),
      expect.objectContaining({ kind: "OUTPUT", data: expect.objectContaining({ status: 504 }) }),
    ]);
    expect(record.duration_ms).toBeGreaterThanOrEqual(200);
    const after = await post(app, "/quick");
    expect(statusAndBody(after)).toEqual([200, { ok: true }]);
  }, 30_000);

  it("runs the failure hooks of a run stuck in native code, as of any timed-out run", async () => {
    const app = await serveProject({
      "bass.config.yaml": "systems: {}\nlimits:\n  cell_timeout_ms: 200\nserve:\n  workers: 1\n",
      "integrations/stuck-early.yaml": stuckEarly,
    });
    const stopped = await post(app, "/stuck-early", { name: "Ada" });
    expect(statusAndBody(stopped)).toEqual([503, { code: "timeout", from: "on_failure_hook", name: "Ada" }]);
    const record = await recordOf(app, stopped.runId);
    expect(record.items.map((item) => item.kind)).toEqual(["INPUT", "FAILURE", "OUTPUT"]);
    expect(record.items[1]).toMatchObject({ error: { code: "cell_timeout", cell: "before_hook", line: 4 } });
  }, 30_000);
});

describe("callint and calladapter in Python cells under serve", () => {
  it("calls a system and other integrations through serve's thread, the embedded mock core too", async () => {
    const app = await serveProject({
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
    const reply = await post(app, "/parent");
    expect(statusAndBody(reply)).toEqual([200, { echoed: 1, child: 200, name: "Ada" }]);
    const parent = await recordOf(app, reply.runId);
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

describe("Python integrations that Python cells call", () => {
  // parent (Python) → middle (Python) → leaf (Python), each calling the echo system; and a JavaScript
  // caller of middle.
  const files = {
    // A first call into a level waits for its worker to start and load Python, within the cell's time.
    "bass.config.yaml":
      "systems:\n  echo:\n    adapter: echo\nlimits:\n  cell_timeout_ms: 20000\nserve:\n  workers: 1\n",
    "integrations/leaf.yaml": `name: leaf
language: python
http_api: false
on_success_hook: |
  echoed = calladapter("echo", "leaf-echo", {"n": input.payload.n + 1})
  output.payload = {"n": echoed.response.payload.n}
`,
    "integrations/middle.yaml": `name: middle
language: python
http_api: false
on_success_hook: |
  echoed = calladapter("echo", "middle-echo", {"n": input.payload.n * 10})
  output.payload = {"n": callint("leaf", {"n": echoed.response.payload.n}).payload.n}
`,
    "integrations/parent.yaml": `name: parent
language: python
endpoints: [{ method: POST, path: /parent }]
on_success_hook: |
  output.payload = {"n": callint("middle", {"n": input.payload.n}).payload.n}
`,
    "integrations/caller.yaml": `name: caller
endpoints: [{ method: POST, path: /caller }]
on_success_hook: |
  const middle = await callint("middle", { n: input.payload.n })
  output.payload = { n: middle.payload.n }
`,
    "tests/parent.test.yaml": `integration: parent
cases:
  - name: three levels down and back
    input: { payload: { n: 4 } }
    expect:
      output: { status: 200, payload: { n: 41 } }
`,
  };

  it("run in workers of their own under serve, where they make calls too", async () => {
    const app = await serveProject(files);
    const answer = await post(app, "/parent", { n: 4 });
    expect(statusAndBody(answer)).toEqual([200, { n: 41 }]);
    await app.history.flush();
    const runs = await Promise.all(
      ["parent", "middle", "leaf"].map(async (integration) => {
        const [run] = (await app.history.list({ integration })) as RunRecord[];
        return run as RunRecord;
      }),
    );
    const [parent, middle, leaf] = runs;
    expect(middle?.parent_run).toBe(parent?.id);
    expect(leaf?.parent_run).toBe(middle?.id);
    expect(leaf?.items.map((item) => item.kind)).toEqual(["INPUT", "REQUEST", "OUTPUT"]);
    const fromJavaScript = await post(app, "/caller", { n: 2 });
    expect(statusAndBody(fromJavaScript)).toEqual([200, { n: 21 }]);
  }, 60_000);

  it("do the same under bass run and bass test", async () => {
    const dir = createTempDir(files);
    // The second run opens the project from its cache, where bass's own thread loads no Python.
    for (const _ of [1, 2]) {
      const parent = await runCli(["run", "parent", "--input", "-", "--json"], {
        cwd: dir,
        stdin: '{"n":4}',
      });
      expect(parent.code, parent.stderr).toBe(0);
      expect(JSON.parse(parent.stdout).output.payload).toEqual({ n: 41 });
    }
    const list = await runCli(["list", "--json"], { cwd: dir });
    expect(
      JSON.parse(list.stdout)
        .map((listed: { name: string }) => listed.name)
        .sort(),
    ).toEqual(["caller", "leaf", "middle", "parent"]);
    // A JavaScript caller runs in a worker thread too, where its Python child makes its calls.
    const caller = await runCli(["run", "caller", "--input", "-", "--json"], { cwd: dir, stdin: '{"n":2}' });
    expect(caller.code, caller.stderr).toBe(0);
    expect(JSON.parse(caller.stdout).output.payload).toEqual({ n: 21 });
    const test = await runCli(["test"], { cwd: dir });
    expect(test.stdout).toMatch(/1 passed, 0 failed/);
  }, 90_000);
});

describe("an async Python child of a JavaScript run under serve", () => {
  it("makes its calls after its parent has answered", async () => {
    const app = await serveProject({
      "slow.mjs":
        "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 300));\n  return { success: true, status: 200, payload: {}, messages: [] };\n}\n",
      "bass.config.yaml":
        "systems:\n  echo:\n    adapter: echo\n  slow:\n    adapter: ./slow.mjs\nserve:\n  workers: 1\n",
      "integrations/parent.yaml": `name: parent
endpoints: [{ method: POST, path: /parent }]
on_success_hook: |
  const child = await callint("child", {}, { mode: "async" })
  output.payload = { run: child.payload.run_id }
`,
      // Its slow service request lets the worker go on, where its parent's run ends first.
      "integrations/child.yaml": `name: child
language: python
http_api: false
service_requests:
  - { formula_variable: first, system: slow }
on_success_hook: |
  echoed = calladapter("echo", "late", {"a": 1})
  output.payload = {"a": echoed.response.payload.a}
`,
    });
    const answer = await post(app, "/parent");
    const { run } = JSON.parse(Buffer.from(answer.body).toString());
    let record: RunRecord | undefined;
    for (let tries = 0; tries < 250 && (record === undefined || record.status === "running"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await app.history.flush();
      record = await app.history.read(run);
    }
    expect(record).toMatchObject({ integration: "child", status: "success", parent_run: answer.runId });
    expect(record?.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { payload: { a: 1 } } });
  }, 30_000);
});

describe("a Python cell waiting for a call", () => {
  it("gives up at its own time limit, the call's outcome unknown, and its worker goes on answering", async () => {
    const app = await serveProject({
      "slow.mjs":
        "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 1500));\n  return { success: true, status: 200, payload: { late: true }, messages: [] };\n}\n",
      "bass.config.yaml":
        "systems:\n  slow:\n    adapter: ./slow.mjs\nlimits:\n  cell_timeout_ms: 300\n  run_timeout_ms: 10000\nserve:\n  workers: 1\n",
      "integrations/hurried.yaml": `name: hurried
language: python
endpoints: [{ method: POST, path: /hurried }]
before_hook: |
  keep(found=calladapter("slow", "get-it", {}, label="found").response.payload)
`,
      "integrations/quick.yaml": quick,
    });
    const hurried = await post(app, "/hurried");
    expect(hurried.status, Buffer.from(hurried.body).toString()).toBe(504);
    const record = await recordOf(app, hurried.runId);
    expect(record.items.find((item) => item.kind === "REQUEST")).toMatchObject({
      label: "found",
      response: {
        success: false,
        messages: [expect.stringMatching(/the outcome of found at slow is unknown/)],
      },
    });
    expect(record.items.find((item) => item.kind === "FAILURE")).toMatchObject({
      error: { code: "cell_timeout", message: "hurried: before_hook: the cell ran past its time limit" },
    });
    // The same worker answers: it was not ended as stuck.
    const after = await post(app, "/quick");
    expect(statusAndBody(after)).toEqual([200, { ok: true }]);
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

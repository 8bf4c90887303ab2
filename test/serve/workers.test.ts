import { describe, expect, it, onTestFinished } from "vitest";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir } from "../_helpers.js";
import { startServeInProcess } from "./_serve-in-process.js";

/** A project of one good integration and one per way a hook can break (SPEC §13.1's list). */
function createBrokenHooksProject(): string {
  const integration = (name: string, hook: string) => `name: ${name}
endpoints:
  - { method: GET, path: /${name} }
  - { method: POST, path: /${name} }
before_hook: ${JSON.stringify(hook)}
on_success_hook: "output.payload = { ok: true, list: [1, 2].map((n) => n * 2) }"
`;
  return createTempDir({
    "bass.config.yaml":
      "systems: {}\nlimits:\n  cell_timeout_ms: 1000\n  cell_memory_mb: 64\nserve:\n  workers: 2\n",
    "integrations/ok.yaml": integration("ok", "null"),
    "integrations/reject.yaml": integration("reject", 'Promise.reject(new Error("boom"))'),
    "integrations/loop.yaml": integration("loop", "Promise.resolve().then(() => { while (true) {} })"),
    "integrations/heavy.yaml": integration("heavy", "while (true) new Uint8Array(2e7).fill(1)"),
    "integrations/grow.yaml": integration(
      "grow",
      "const keep = []; while (true) keep.push(new Array(1e5).fill({ x: 1 }))",
    ),
    "integrations/hijack.yaml": integration("hijack", "Object.prototype.toJSON = () => 'hijacked'"),
    "integrations/hijack-input.yaml": integration(
      "hijack-input",
      "input.constructor.prototype.toJSON = () => 'hijacked'",
    ),
  });
}

const host = { host: "127.0.0.1:3000" };
const get = (path: string) => ({ method: "GET", url: path, headers: host, body: new Uint8Array(0) });

describe("serve runs integrations in worker threads (SPEC §13.1)", () => {
  it.each([
    ["reject", 500, "cell_error"],
    ["loop", 504, "cell_timeout"],
    ["heavy", 504, "cell_timeout"],
    ["grow", 500, "worker_died"],
    ["hijack", 500, "cell_error"],
    ["hijack-input", 500, "cell_error"],
  ])(
    "answers a hook that breaks (%s) with %i, records why, and the other answers stay the same",
    async (name, status, code) => {
      const dir = createBrokenHooksProject();
      const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
      onTestFinished(() => app.close());
      const before = await app.handle(get("/ok"));
      const started = performance.now();
      const [broken, health] = await Promise.all([
        app.handle(get(`/${name}`)),
        app.handle(get("/_bass/health")),
      ]);
      // A bound for the test's sake: the cell limit plus 2 s, as the issue states it.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(broken.status).toBe(status);
      expect(health.status).toBe(200);
      const after = await app.handle(get("/ok"));
      expect(String(after.body)).toBe(String(before.body));
      expect(String(after.body)).toBe('{"ok":true,"list":[2,4]}');
      await app.history.flush();
      const [record] = await app.history.list({ integration: name });
      expect(record?.status).toBe("failure");
      expect(record?.items.find((item) => item.kind === "FAILURE")).toMatchObject({ error: { code } });
    },
  );

  it("answers other requests while a worker's hook loops, over a socket, and still runs after", async () => {
    const serve = await startServeInProcess(createBrokenHooksProject());
    onTestFinished(async () => {
      await serve.stop();
    });
    const at = (path: string) => fetch(`http://127.0.0.1:${serve.port}${path}`);
    const looping = at("/heavy");
    const health = await at("/_bass/health");
    expect(health.status).toBe(200);
    expect((await looping).status).toBe(504);
    const grown = await at("/grow");
    expect(grown.status).toBe(500);
    expect(await grown.json()).toMatchObject({ error: { code: "worker_died" } });
    const ok = await at("/ok");
    expect(await ok.json()).toEqual({ ok: true, list: [2, 4] });
    expect((await serve.stop()).code).toBe(0);
  });
});

describe("an Idempotency-Key whose run's worker died", () => {
  it("is not kept: a retry with the key runs again", async () => {
    const dir = createBrokenHooksProject();
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, logError: () => {} });
    onTestFinished(() => app.close());
    const post = () =>
      app.handle({
        method: "POST",
        url: "/grow",
        headers: { ...host, "idempotency-key": "k-1" },
        body: new Uint8Array(0),
      });
    const first = await post();
    const retry = await post();
    for (const answer of [first, retry]) {
      expect(answer.status).toBe(500);
      expect(answer.headers["idempotent-replayed"]).toBeUndefined();
    }
    expect(retry.runId).not.toBe(first.runId);
  });
});

describe("a worker that ends on an error of its own", () => {
  it("fails the run it held with a record, and serve goes on", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        "systems:\n  boom:\n    adapter: ./boom.mjs\n    headers: { X-Key: '${env:KEY}' }\nserve:\n  workers: 1\n",
      // An error thrown outside any run's reach ends the worker's thread.
      "boom.mjs":
        "export function execute(request, config) {\n  setTimeout(() => { throw new Error('boom ' + config.headers['X-Key']) });\n  return new Promise(() => {});\n}\n",
      "integrations/boom.yaml":
        "name: boom\nendpoints:\n  - { method: GET, path: /boom }\nservice_requests:\n  - { formula_variable: b, system: boom }\n",
      "integrations/ok.yaml":
        'name: ok\nendpoints:\n  - { method: GET, path: /ok }\non_success_hook: "output.payload = { ok: true }"\n',
    });
    const secret = "key-secret-4711";
    const app = await createServeApp({ cwd: dir, env: { KEY: secret }, projectDir: dir, logError: () => {} });
    onTestFinished(() => app.close());
    const boom = await app.handle(get("/boom"));
    expect(boom.status).toBe(500);
    expect(JSON.parse(String(boom.body))).toMatchObject({ error: { code: "worker_died" } });
    // The worker's error quoted the secret: the answer and the record hold it masked.
    expect(String(boom.body)).not.toContain(secret);
    expect(String(boom.body)).toContain("boom XXXXXXXXXXXX");
    const ok = await app.handle(get("/ok"));
    expect(String(ok.body)).toBe('{"ok":true}');
    await app.history.flush();
    const [record] = await app.history.list({ integration: "boom" });
    expect(record?.items).toEqual([
      expect.objectContaining({ kind: "FAILURE", error: expect.objectContaining({ code: "worker_died" }) }),
      expect.objectContaining({ kind: "OUTPUT", data: expect.objectContaining({ status: 500 }) }),
    ]);
    expect(JSON.stringify(record)).not.toContain(secret);
  });
});

describe("an async integration in a worker thread", () => {
  it("answers 202 at once and leaves the run's ended record, not its running one", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 1\n",
      "integrations/later.yaml":
        'name: later\nrun_async: true\nendpoints:\n  - { method: POST, path: /later }\non_success_hook: "output.payload = { done: true }"\n',
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const answers = await Promise.all([1, 2, 3].map(() => app.handle({ ...get("/later"), method: "POST" })));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    // As serve's stop does: the runs that answered 202 may end within the grace.
    await app.close(10_000);
    const records = await app.history.list({ integration: "later" });
    expect(records.map((record) => record.status)).toEqual(["success", "success", "success"]);
    expect(records.map((record) => record.id).sort()).toEqual(answers.map((answer) => answer.runId).sort());
  });
});

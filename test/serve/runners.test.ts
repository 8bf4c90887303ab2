import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { stringify } from "yaml";
import type { RunRecord } from "../../src/engine/types.js";
import { createServeApp, type ServeApp } from "../../src/serve/app.js";
import { copySamples, createTempDir } from "../_helpers.js";

const samples = join(import.meta.dirname, "..", "..", "samples");
const taxId = "123-45-6789";

/** A definition file served at `POST /<name>`, with `keys` besides its name and endpoint. */
function served(name: string, keys: Record<string, unknown>): [string, string] {
  return [
    `integrations/${name}.yaml`,
    stringify({ name, endpoints: [{ method: "POST", path: `/${name}` }], ...keys }),
  ];
}

/** More integrations beside the samples: an async one, one that loops, one with an async callint child. */
const extra = Object.fromEntries([
  served("later", { run_async: true, before_hook: "debug(input.payload.n, 'n')" }),
  served("loops", { before_hook: "for (;;) {}" }),
  served("starts", {
    on_success_hook:
      "const child = await callint('later', { n: 7 }, { mode: 'async' })\noutput.payload = child.payload",
  }),
]);

/** A copy of the samples with `extra`, served in this process by `workers` worker threads (none: serve's own). */
async function serveSamples(workers: number | undefined): Promise<ServeApp> {
  const dir = createTempDir();
  copySamples(dir);
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(dir, file), text);
  const config = join(dir, "bass.config.yaml");
  // A loop runs out its time sooner.
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace("cell_timeout_ms: 1000", "cell_timeout_ms: 300"),
  );
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, workers });
  onTestFinished(() => app.close());
  return app;
}

async function send(app: ServeApp, method: string, url: string, body?: unknown, headers = {}) {
  const response = await app.handle({
    method,
    url,
    headers: { host: "127.0.0.1", "content-type": "application/json", ...headers },
    body: new TextEncoder().encode(body === undefined ? "" : JSON.stringify(body)),
  });
  const text = typeof response.body === "string" ? response.body : new TextDecoder().decode(response.body);
  return { ...response, json: text ? JSON.parse(text) : undefined, text };
}

/** A run's record once the history holds its end (an async run's comes after its 202). */
async function endedRecord(app: ServeApp, id: string): Promise<RunRecord> {
  for (let tries = 0; tries < 200; tries++) {
    const record = await app.history.read(id);
    if (record && record.status !== "running") return record;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`run ${id} did not end`);
}

// serve's own thread (serve.workers: 0) and the production default (a pool of worker threads) answer alike.
describe.each([
  ["on serve's own thread", 0],
  ["in worker threads, serve's default", undefined],
])("serve running integrations %s", (_name, workers) => {
  it("answers the samples, keeps their masked records, and replays a key's first answer", async () => {
    const app = await serveSamples(workers);
    const input = JSON.parse(readFileSync(join(samples, "inputs", "customers.create.json"), "utf8"));
    const created = await send(app, "POST", "/api/v1/core-processor/customers", input);
    expect(created.status).toBe(201);
    const record = await endedRecord(app, created.runId ?? "");
    expect(record).toMatchObject({ integration: "customers.create", trigger: "http", status: "success" });
    expect(JSON.stringify(record)).not.toContain(taxId);

    const found = await send(
      app,
      "GET",
      `/api/v1/core-processor/customers?customer_id=${created.json.customer_id}`,
    );
    expect(found).toMatchObject({
      status: 200,
      json: { customer_id: created.json.customer_id, first_name: "Grace" },
    });

    const transfer = JSON.parse(
      readFileSync(join(samples, "inputs", "monetary-internal-transfers.create.json"), "utf8"),
    );
    const key = { "idempotency-key": "runners-1" };
    const first = await send(
      app,
      "POST",
      "/api/v1/core-processor/monetary-internal-transfers",
      transfer,
      key,
    );
    const again = await send(
      app,
      "POST",
      "/api/v1/core-processor/monetary-internal-transfers",
      transfer,
      key,
    );
    expect(first.status).toBe(201);
    expect({
      status: again.status,
      text: again.text,
      replayed: again.headers["idempotent-replayed"],
    }).toEqual({
      status: 201,
      text: first.text,
      replayed: "true",
    });
  });

  it("answers an async integration 202 at once and keeps its record from running to its end", async () => {
    const app = await serveSamples(workers);
    const started = await send(app, "POST", "/later", { n: 3 });
    expect(started).toMatchObject({ status: 202, json: { run_id: started.runId, status: "started" } });
    const record = await endedRecord(app, started.runId ?? "");
    expect(record.items.map((item) => item.kind)).toEqual(["INPUT", "DEBUG", "OUTPUT"]);
  });

  it("keeps the record of an async callint child that ends after its parent answered", async () => {
    const app = await serveSamples(workers);
    const parent = await send(app, "POST", "/starts", {});
    expect(parent).toMatchObject({ status: 200, json: { status: "started" } });
    const child = await endedRecord(app, parent.json.run_id);
    expect(child).toMatchObject({ integration: "later", trigger: "callint", parent_run: parent.runId });
  });

  it("answers a hook that loops with 504 and its record, and answers the next request", async () => {
    const app = await serveSamples(workers);
    const looping = await send(app, "POST", "/loops", {});
    expect(looping.status).toBe(504);
    const record = await endedRecord(app, looping.runId ?? "");
    expect(record.items.find((item) => item.kind === "FAILURE")).toMatchObject({
      error: { code: "cell_timeout" },
    });
    expect((await send(app, "POST", "/later", { n: 1 })).status).toBe(202);
  });
});

describe("serve's default pool, a cell stuck in a built-in", () => {
  it("ends its worker past the deadline, answers it 504 with its record, and answers the others", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nlimits:\n  cell_timeout_ms: 200\n",
      // A lookahead is beyond V8's linear-time engine: the match backtracks without end.
      ...Object.fromEntries([
        served("stuck", { before_hook: "/^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')" }),
        served("fine", { on_success_hook: "output.payload = { fine: true }" }),
      ]),
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, workers: 2 });
    onTestFinished(() => app.close());
    const stuck = send(app, "POST", "/stuck", {});
    expect((await send(app, "POST", "/fine", {})).json).toEqual({ fine: true });
    const answer = await stuck;
    expect(answer.status).toBe(504);
    const record = await endedRecord(app, answer.runId ?? "");
    expect(record.items.find((item) => item.kind === "FAILURE")).toMatchObject({
      error: { code: "cell_timeout", message: expect.stringContaining("its worker thread was ended") },
    });
    expect((await send(app, "POST", "/fine", {})).json).toEqual({ fine: true });
  }, 20_000);
});

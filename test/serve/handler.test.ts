import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createRunId } from "../../src/engine/run-id.js";
import type { RunRecord } from "../../src/engine/types.js";
import { createServeApp } from "../../src/serve/app.js";
import {
  createFakeCore,
  createServeProject,
  type FakeCore,
  type ServeProjectOptions,
  secretAccount,
} from "./_project.js";

interface SendOptions {
  /** A string or bytes is sent as it is, anything else as JSON. */
  body?: unknown;
  /** The Content-Type; JSON when a body is given, none without. */
  type?: string;
  headers?: Record<string, string>;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  text: string;
  runId: string | undefined;
  logPath: string;
}

interface ContextOptions {
  env?: Record<string, string>;
  /** The idempotency store's clock. */
  clock?: () => number;
}

/** A serve context on the project in `dir`, as `bass serve` builds it, with `core` as every system's adapter. */
async function createContext(dir: string, core: FakeCore, options: ContextOptions = {}) {
  const app = await createServeApp({
    cwd: dir,
    env: options.env ?? {},
    adapters: () => core,
    clock: options.clock,
  });
  onTestFinished(() => app.close());
  const { history, idempotency, limiter, handle } = app;
  const set = app.current();

  async function send(method: string, url: string, options: SendOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { host: "127.0.0.1:3000", ...options.headers };
    let body: Uint8Array = new Uint8Array();
    if (options.body !== undefined) {
      body =
        options.body instanceof Uint8Array
          ? options.body
          : Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
      headers["content-type"] = options.type ?? "application/json";
    } else if (options.type !== undefined) headers["content-type"] = options.type;
    const response = await handle({ method, url, headers, body });
    const bytes = Buffer.from(response.body);
    return {
      status: response.status,
      headers: response.headers,
      bytes,
      text: bytes.toString("utf8"),
      runId: response.runId,
      logPath: response.logPath,
    };
  }

  return { set, history, idempotency, limiter, send };
}

/** A project of the served integrations, its fake core and a context on it. */
async function createServe(options: ServeProjectOptions & ContextOptions = {}) {
  const core = createFakeCore();
  const dir = createServeProject(core, options);
  return { core, dir, ...(await createContext(dir, core, options)) };
}

const json = (reply: Reply) => JSON.parse(reply.text);

/** Checks that `reply` is serve's own problem+json of `status` (SPEC §7) and returns the problem. */
function expectProblem(reply: Reply, status: number) {
  expect({ status: reply.status, type: reply.headers["content-type"] }).toEqual({
    status,
    type: "application/problem+json",
  });
  const problem = json(reply);
  expect(Object.keys(problem).sort()).toEqual(
    ["detail", "status", "title", "type", ...(problem.errors ? ["errors"] : [])].sort(),
  );
  expect(problem).toMatchObject({ type: "about:blank", status, title: expect.any(String) });
  expect(problem.detail).toEqual(expect.any(String));
  expect(reply.runId).toBeUndefined();
  return problem as { type: string; title: string; status: number; detail: string; errors?: unknown[] };
}

/** Waits for `check` to hold, a few milliseconds at a time, for at most a second. */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 100; tries++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the condition did not hold within a second");
}

/** Fails (rather than waits) when `promise` does not settle within `ms`. */
function within<T>(promise: Promise<T>, ms = 1000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

describe("routing", () => {
  it.each([
    ["GET", "/items/42", { item_id: "42" }, {}],
    ["PUT", "/items/42/", { item_id: "42" }, {}],
    ["GET", "/items/caf%C3%A9?q=a", { item_id: "café" }, { q: "a" }],
    ["DELETE", "/items/7/tags/red%20hot", { item_id: "7", tag: "red hot" }, {}],
    ["GET", "/items?tag=a&tag=b&one=1&empty=", {}, { tag: ["a", "b"], one: "1", empty: "" }],
    ["GET", "/items?q=a%26b&q=c+d", {}, { q: ["a&b", "c d"] }],
  ])("%s %s gives input.path %j and input.params %j", async (method, url, path, params) => {
    const { send } = await createServe();
    const reply = await send(method, url);
    expect(reply.status).toBe(200);
    expect(json(reply)).toMatchObject({ method, path, params });
    expect(reply.runId).toMatch(/^[0-9A-Z]{26}$/);
  });

  it("keeps a query name __proto__ as plain data", async () => {
    const { send } = await createServe();
    const reply = await send("GET", "/items?__proto__=x&constructor=y");
    expect(reply.text).toContain('"params":{"__proto__":"x","constructor":"y"}');
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it("gives an empty query (a bare ?) as empty input.params", async () => {
    const { send } = await createServe();
    const reply = await send("GET", "/items?");
    expect(json(reply)).toMatchObject({ params: {} });
  });

  it("keeps a header named __proto__ as plain data in the run's input", async () => {
    const { send, history } = await createServe();
    const headers: Record<string, string> = JSON.parse('{"__proto__":"x","x-note":["a","b"]}');
    const reply = await send("GET", "/items", { headers });
    await history.flush();
    const input = (await history.read(reply.runId as string))?.items[0];
    const recorded = input?.kind === "INPUT" ? input.data.headers : {};
    expect(Object.hasOwn(recorded, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(recorded)).toBe(Object.prototype);
    expect(recorded).toMatchObject({ "x-note": "a, b" });
  });

  it.each([
    ["GET", "/nope"],
    ["GET", "/"],
    ["GET", "/items/1/2"],
    ["GET", "/items/a%2Fb"],
    ["GET", "/items/%E0%A4%A"],
    ["POST", "/strict/extra"],
  ])("answers %s %s with 404 and runs nothing", async (method, url) => {
    const { send, core } = await createServe();
    const problem = expectProblem(await send(method, url), 404);
    expect(problem.title).toBe("Not Found");
    expect(core.calls).toBe(0);
  });

  it.each([
    ["POST", "/items/1", "GET, PUT"],
    ["PATCH", "/items/1", "GET, PUT"],
    ["GET", "/transfers", "POST"],
    ["DELETE", "/items", "GET"],
    ["GET", "/items/1/tags/x", "DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, url, allow) => {
    const { send, core } = await createServe();
    const reply = await send(method, url);
    expectProblem(reply, 405);
    expect(reply.headers.allow).toBe(allow);
    expect(core.calls).toBe(0);
  });
});

describe("request bodies", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  const deepXml = (levels: number) => `${"<a>".repeat(levels)}x${"</a>".repeat(levels)}`;

  it.each<[string, string | undefined, string | undefined, unknown]>([
    ["JSON", "application/json", '{"a":1,"b":[true,null]}', { a: 1, b: [true, null] }],
    ["JSON with a charset", "application/json; charset=utf-8", "[1,2]", [1, 2]],
    ["a +json type", "application/vnd.bank+json", '{"x":"y"}', { x: "y" }],
    [
      "XML",
      "application/xml",
      "<customer><name>Ada</name><tier>2</tier></customer>",
      { customer: { name: "Ada", tier: "2" } },
    ],
    ["text/xml", "text/xml", "<a><b>1</b><b>2</b></a>", { a: { b: ["1", "2"] } }],
    ["an empty body without a type", undefined, undefined, {}],
    ["an empty body with a type serve does not read", "text/plain", "", {}],
    ["64 levels of nesting", "application/json", deep(64), JSON.parse(deep(64))],
  ])("reads %s into input.payload", async (_, type, body, payload) => {
    const { send } = await createServe();
    const reply = await send("PUT", "/items/1", { body, type });
    expect(reply.status).toBe(200);
    expect(json(reply).payload).toEqual(payload);
  });

  it.each<[string, number, string | undefined, string | Uint8Array]>([
    ["malformed JSON", 400, "application/json", '{"a":'],
    ["JSON with a trailing comma", 400, "application/json", '{"a":1,}'],
    ["malformed XML", 400, "application/xml", "<a><b></a>"],
    ["XML with a DOCTYPE", 400, "application/xml", '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'],
    ["bytes that are not UTF-8", 400, "application/json", new Uint8Array([0x22, 0xff, 0x22])],
    ["JSON nested 65 levels", 400, "application/json", deep(65)],
    ["JSON nested 100000 levels", 400, "application/json", deep(100_000)],
    ["XML nested 65 levels", 400, "application/xml", deepXml(65)],
  ])("answers %s with %i and runs nothing", async (_, status, type, body) => {
    const { send, core } = await createServe();
    const problem = expectProblem(await send("PUT", "/items/1", { body, type }), status);
    // A detail never quotes the body: it may hold secrets.
    if (typeof body === "string" && body.length > 2) expect(problem.detail).not.toContain(body);
    expect(core.calls).toBe(0);
  });
});

describe("bodies of other types", () => {
  it.each([
    ["text/plain", "text/plain", "hello", {}],
    ["a body without a type", "", "{}", {}],
    [
      "a url-encoded form, into the payload",
      "application/x-www-form-urlencoded",
      "a=1&b=two",
      { a: "1", b: "two" },
    ],
  ])("takes %s, and runs", async (_, type, body, payload) => {
    const { send, core } = await createServe();
    const reply = await send("PUT", "/items/1", { body, type });
    expect(reply.status).toBe(200);
    expect(json(reply).payload).toEqual(payload);
    expect(core.calls).toBe(1);
  });
});

describe("request_schema", () => {
  it.each([
    ["a wrong type and an extra field", { amount: "12", note: 1 }, ["#/amount", "#/note"]],
    ["a missing field", {}, ["#/amount"]],
    ["a body that is not an object", [1], [""]],
    ["an empty body (read as {})", undefined, ["#/amount"]],
  ])("answers %s with 400 and the schema's errors", async (_, body, pointers) => {
    const { send, core } = await createServe();
    const problem = expectProblem(await send("POST", "/strict", { body }), 400);
    const errors = problem.errors as { pointer: string; message: string }[];
    expect(errors.map((error) => error.pointer.replace(/^#$/, "")).sort()).toEqual(
      pointers.map((pointer) => pointer).sort(),
    );
    for (const error of errors) expect(error.message).toEqual(expect.any(String));
    expect(core.calls).toBe(0);
  });

  it("runs a body that matches", async () => {
    const { send, core } = await createServe();
    const reply = await send("POST", "/strict", { body: { amount: 12.5 } });
    expect({ status: reply.status, body: json(reply) }).toEqual({ status: 200, body: { amount: 12.5 } });
    expect(core.calls).toBe(1);
  });
});

describe("sending the output (SPEC §4.10)", () => {
  it("sends a payload as JSON by default, with the status and headers the run set", async () => {
    const { send } = await createServe();
    const reply = await send("POST", "/transfers", { body: { amount: "1.00" } });
    expect(reply.status).toBe(201);
    expect(reply.headers).toEqual({
      "content-type": "application/json; charset=utf-8",
      location: "/transfers/1",
    });
    expect(json(reply)).toEqual({ amount: "1.00", call: 1 });
  });

  it("sends a byte-string payload as it is, with its Content-Type", async () => {
    const { send } = await createServe();
    const reply = await send("GET", "/outputs/csv");
    expect(reply.status).toBe(200);
    expect(reply.headers).toEqual({ "content-type": "text/csv; charset=utf-8", "x-rows": "1" });
    expect(reply.bytes.equals(Buffer.from("a,b\n1,2\n"))).toBe(true);
  });

  it.each([
    ["a failed validation rule", "/outputs/invalid", 422, "validation_failed", "kind must not be invalid"],
    [
      "a Content-Type without a byte string",
      "/outputs/not-bytes",
      500,
      "internal_error",
      "output.payload must be a byte string when Content-Type is set",
    ],
  ])(
    "sends the §12 default failure after %s as the run left it, not as a problem",
    async (_, url, status, code, detail) => {
      const { send } = await createServe();
      const reply = await send("GET", url);
      expect(reply.status).toBe(status);
      expect(reply.headers).toEqual({ "content-type": "application/json; charset=utf-8" });
      expect(json(reply)).toEqual({
        error: { code, message: expect.any(String), run_id: reply.runId, details: [detail] },
      });
    },
  );
});

describe("Idempotency-Key", () => {
  const transfer = { amount: "10.00" };

  it("replays the stored answer to a repeat with Idempotent-Replayed: true, and runs nothing again", async () => {
    const { send, core, history } = await createServe();
    const headers = { "idempotency-key": "order-1" };
    const first = await send("POST", "/transfers", { body: transfer, headers });
    const again = await send("POST", "/transfers", { body: transfer, headers });
    expect(first.status).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers).toEqual({ ...first.headers, "idempotent-replayed": "true" });
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(core.calls).toBe(1);
    await history.flush();
    expect(await history.list({ integration: "transfers" })).toHaveLength(1);
  });

  it.each([
    ["POST", "/transfers", 1],
    ["PUT", "/items/1", 1],
    ["GET", "/items/1", 2],
    ["DELETE", "/items/1/tags/x", 2],
  ])("keys %s requests (%s runs %i time(s) for two requests)", async (method, url, runs) => {
    const { send, core } = await createServe();
    const body = method === "POST" || method === "PUT" ? transfer : undefined;
    for (let i = 0; i < 2; i++) await send(method, url, { body, headers: { "idempotency-key": "k" } });
    expect(core.calls).toBe(runs);
  });

  it("runs again once the key is older than idempotency_ttl_s", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const { send, core } = await createServe({
      config: "serve:\n  idempotency_ttl_s: 60\n",
      clock: () => now,
    });
    const headers = { "idempotency-key": "ttl" };
    await send("POST", "/transfers", { body: transfer, headers });
    now += 59_000;
    expect((await send("POST", "/transfers", { body: transfer, headers })).headers).toHaveProperty(
      "idempotent-replayed",
      "true",
    );
    now += 1_000;
    const after = await send("POST", "/transfers", { body: transfer, headers });
    expect(after.headers["idempotent-replayed"]).toBeUndefined();
    expect(json(after).call).toBe(2);
    expect(core.calls).toBe(2);
  });

  it("answers 409 to a repeat while the first still runs, then replays once it has ended", async () => {
    const { send, core } = await createServe();
    const headers = { "idempotency-key": "busy" };
    const hold = core.hold();
    const first = send("POST", "/transfers", { body: transfer, headers });
    await hold.entered;
    expectProblem(await send("POST", "/transfers", { body: transfer, headers }), 409);
    hold.release();
    expect((await first).status).toBe(201);
    const replay = await send("POST", "/transfers", { body: transfer, headers });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(core.calls).toBe(1);
  });

  it.each([
    ["another body", "POST", "/transfers", { amount: "11.00" }],
    ["another path", "POST", "/accounts/1/transfers", transfer],
    ["another method", "PUT", "/items/1", transfer],
  ])("answers 422 to the same key with %s, after and while the first runs", async (_, method, url, body) => {
    const { send, core } = await createServe();
    const headers = { "idempotency-key": "same" };
    const hold = core.hold();
    const first = send("POST", "/transfers", { body: transfer, headers });
    await hold.entered;
    expectProblem(await send(method, url, { body, headers }), 422);
    hold.release();
    await first;
    expectProblem(await send(method, url, { body, headers }), 422);
    expect(core.calls).toBe(1);
  });

  it.each(["", "x".repeat(65), "two words", "tab\there", "clé"])(
    "answers 400 to the invalid key %j and runs nothing",
    async (key) => {
      const { send, core } = await createServe();
      const problem = expectProblem(
        await send("POST", "/transfers", { body: transfer, headers: { "idempotency-key": key } }),
        400,
      );
      expect(problem.detail).toMatch(/Idempotency-Key/);
      expect(core.calls).toBe(0);
    },
  );

  it("keeps answered keys on disk: a context started afresh on the same project replays", async () => {
    const { send, core, dir, idempotency } = await createServe();
    const headers = { "idempotency-key": "restart" };
    const first = await send("POST", "/transfers", { body: transfer, headers });
    await idempotency.flush();
    const restarted = await createContext(dir, core);
    const replay = await restarted.send("POST", "/transfers", { body: transfer, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.bytes.equals(first.bytes)).toBe(true);
    expect(core.calls).toBe(1);
  });

  it("keeps the first answer sealed on disk and replays it byte for byte, also after a restart", async () => {
    const { send, core, dir, idempotency } = await createServe();
    const headers = { "idempotency-key": "sealed" };
    const body = { account: secretAccount, amount: "1.00" };
    const first = await send("POST", "/transfers", { body, headers });
    expect(first.status).toBe(201);
    await idempotency.flush();
    const folder = join(dir, ".bass", "idempotency");
    const files = readdirSync(folder);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const stored = readFileSync(join(folder, file), "utf8");
      expect(stored).not.toContain(secretAccount);
      expect(stored).not.toContain(Buffer.from(first.text).toString("base64").slice(0, 16));
    }
    const same = (replay: typeof first) => {
      expect(replay.status).toBe(first.status);
      expect(replay.text).toBe(first.text);
      expect(replay.headers).toEqual({ ...first.headers, "idempotent-replayed": "true" });
    };
    same(await send("POST", "/transfers", { body, headers }));
    same(await (await createContext(dir, core)).send("POST", "/transfers", { body, headers }));
    expect(core.calls).toBe(1);
  });

  it("keeps each credential's keys apart", async () => {
    const { send, core } = await createServe({
      config: 'serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN_A}", "${env:TOKEN_B}"] }\n',
      env: { TOKEN_A: "token-a", TOKEN_B: "token-b" },
    });
    const body = { account: "DE00", amount: "1.00" };
    const as = (token: string) => ({
      body,
      headers: { "idempotency-key": "shared", authorization: `Bearer ${token}` },
    });
    expect((await send("POST", "/transfers", as("token-a"))).status).toBe(201);
    const other = await send("POST", "/transfers", as("token-b"));
    expect(other.status).toBe(201);
    expect(other.headers["idempotent-replayed"]).toBeUndefined();
    expect((await send("POST", "/transfers", as("token-a"))).headers["idempotent-replayed"]).toBe("true");
    expect(core.calls).toBe(2);
  });

  it.each([502, 503, 504])("keeps no %i answer: a retry with the key runs again", async (status) => {
    // Its first call answers what the body asks, as a gateway before a core that is down would.
    const flaky = `name: flaky
endpoints:
  - { method: POST, path: /flaky }
service_requests:
  - formula_variable: core
    system: core
    service_name: echo
on_success_hook: "output.status = core.response.payload.call === 1 ? input.payload.status : 201"
`;
    const { send } = await createServe({ files: { "integrations/flaky.yaml": flaky } });
    const headers = { "idempotency-key": `down-${status}` };
    const body = { status };
    expect((await send("POST", "/flaky", { body, headers })).status).toBe(status);
    const retry = await send("POST", "/flaky", { body, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
  });
});

describe("asynchronous integrations (run_async: true)", () => {
  it("answers 202 { run_id, status: started } at once; the record shows the run running, then ended", async () => {
    const { send, core, limiter } = await createServe();
    const hold = core.hold();
    const accepted = await within(send("POST", "/jobs", { body: { n: 1 } }));
    expect(accepted.status).toBe(202);
    expect(accepted.headers["content-type"]).toBe("application/json; charset=utf-8");
    const body = json(accepted);
    expect(body).toEqual({ run_id: accepted.runId, status: "started" });
    await hold.entered;
    expect(limiter.active).toBe(1);

    const running = json(await send("GET", `/_bass/runs/${body.run_id}`)) as RunRecord;
    expect(running).toMatchObject({ id: body.run_id, integration: "jobs", status: "running", async: true });
    hold.release();
    const ended = await eventually(async () => {
      const record = json(await send("GET", `/_bass/runs/${body.run_id}`)) as RunRecord;
      return record.status === "running" ? undefined : record;
    });
    expect(ended.status).toBe("success");
    expect(ended.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { status: 200, payload: { done: 1 } } });
    expect(limiter.active).toBe(0);
  });
});

describe("admin routes", () => {
  it("answers /_bass/health", async () => {
    const { send } = await createServe();
    const reply = await send("GET", "/_bass/health");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    // Five integrations have endpoints; `unserved` has none.
    expect(json(reply)).toEqual({
      status: "ok",
      project: expect.any(String),
      integrations: 5,
      active_runs: 0,
    });
  });

  it("lists runs newest first, filtered by integration, status, label and limit", async () => {
    const { send, core } = await createServe();
    const item = await send("GET", "/items/1");
    const failed = await send("GET", "/outputs/invalid");
    const job = json(await send("POST", "/jobs", { body: {} })).run_id as string;
    await eventually(async () => (core.calls === 2 ? true : undefined));
    const ids = async (query: string) => {
      const reply = await send("GET", `/_bass/runs${query}`);
      expect(reply.status).toBe(200);
      return (json(reply) as RunRecord[]).map((record) => record.id);
    };
    expect(await ids("")).toEqual([job, failed.runId, item.runId]);
    expect(await ids("?integration=items")).toEqual([item.runId]);
    expect(await ids("?status=failure")).toEqual([failed.runId]);
    expect(await ids("?label=job")).toEqual([job]);
    expect(await ids("?limit=2")).toEqual([job, failed.runId]);
    expect(await ids("?integration=items&status=failure")).toEqual([]);
  });

  it.each(["?status=done", "?limit=0", "?limit=1001", "?limit=two"])(
    "answers /_bass/runs%s with 400",
    async (query) => {
      const { send } = await createServe();
      expectProblem(await send("GET", `/_bass/runs${query}`), 400);
    },
  );

  it("answers /_bass/runs/{id} with the masked record", async () => {
    const { send } = await createServe();
    const run = await send("POST", "/transfers", { body: { account: secretAccount, amount: "1.00" } });
    const reply = await send("GET", `/_bass/runs/${run.runId}`);
    expect(reply.status).toBe(200);
    const record = json(reply) as RunRecord;
    expect(record).toMatchObject({
      id: run.runId,
      integration: "transfers",
      trigger: "http",
      status: "success",
    });
    expect(record.items[0]).toMatchObject({
      kind: "INPUT",
      data: { method: "POST", payload: { account: "XXXXXXXXXXXX", amount: "1.00" } },
    });
    expect(reply.text).not.toContain(secretAccount);
  });

  it.each([
    "/_bass/runs/../x",
    "/_bass/runs/%2e%2e/x",
    "/_bass/runs/..%2Fhistory",
    "/_bass/runs/not-a-run-id",
    `/_bass/runs/${createRunId().toLowerCase()}`,
    `/_bass/runs/${createRunId()}`,
    `/_bass/runs/${createRunId()}.json`,
    "/_bass/nope",
  ])("answers %s with 404", async (url) => {
    const { send } = await createServe();
    await send("GET", "/items/1");
    expectProblem(await send("GET", url), 404);
  });

  it("answers another method than GET with 405 and Allow: GET", async () => {
    const { send } = await createServe();
    const reply = await send("POST", "/_bass/health", { body: {} });
    expectProblem(reply, 405);
    expect(reply.headers.allow).toBe("GET");
  });

  it("answers /_bass/openapi.json with the served endpoints", async () => {
    const { send } = await createServe();
    const reply = await send("GET", "/_bass/openapi.json");
    expect(reply.status).toBe(200);
    const document = json(reply);
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths).sort()).toEqual([
      "/accounts/{account}/transfers",
      "/items",
      "/items/{item_id}",
      "/items/{item_id}/tags/{tag}",
      "/jobs",
      "/outputs/{kind}",
      "/strict",
      "/transfers",
    ]);
    expect(Object.keys(document.paths["/items/{item_id}"]).filter((key) => key !== "parameters")).toEqual([
      "get",
      "put",
    ]);
  });
});

/** An Authorization header of basic auth. */
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("auth", () => {
  const bearer = 'serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN}"] }\n';
  const users = 'serve:\n  auth: { type: basic, users: { ada: "${env:PASSWORD}" } }\n';
  const env = { TOKEN: "t0ken-of-the-test", PASSWORD: "pa55word-of-ada" };

  it.each<[string, string | undefined, number, string | undefined, string]>([
    ["none", undefined, 200, undefined, ""],
    ["none", "Bearer anything", 200, undefined, ""],
    ["bearer", undefined, 401, 'Bearer realm="bass"', bearer],
    ["bearer", "Bearer wrong-token", 401, 'Bearer realm="bass", error="invalid_token"', bearer],
    ["bearer", `Basic ${Buffer.from(env.TOKEN).toString("base64")}`, 401, 'Bearer realm="bass"', bearer],
    ["bearer", `Bearer ${env.TOKEN}x`, 401, 'Bearer realm="bass", error="invalid_token"', bearer],
    ["bearer", `Bearer ${env.TOKEN}`, 200, undefined, bearer],
    ["bearer", `bearer ${env.TOKEN}`, 200, undefined, bearer],
    ["basic", undefined, 401, 'Basic realm="bass"', users],
    ["basic", basic("ada", "wrong"), 401, 'Basic realm="bass"', users],
    ["basic", basic("bob", env.PASSWORD), 401, 'Basic realm="bass"', users],
    ["basic", `Bearer ${env.PASSWORD}`, 401, 'Basic realm="bass"', users],
    ["basic", basic("ada", env.PASSWORD), 200, undefined, users],
  ])("auth %s with Authorization %j: %i", async (_, authorization, status, challenge, config) => {
    const { send, core } = await createServe({ config, env });
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    for (const url of ["/items/1", "/_bass/health", "/_bass/runs", "/_bass/openapi.json"]) {
      const reply = await send("GET", url, { headers });
      if (status === 401) expectProblem(reply, 401);
      expect([url, reply.status, reply.headers["www-authenticate"]]).toEqual([url, status, challenge]);
    }
    expect(core.calls).toBe(status === 200 ? 1 : 0);
  });
});

describe("input.user", () => {
  const whoami = {
    "integrations/whoami.yaml":
      'name: whoami\nendpoints: [{ method: GET, path: /whoami }]\non_success_hook: "output.payload = { user: input.user }"\n',
  };
  const env = { TOKEN: "t0ken-of-the-test", PASSWORD: "pa55word-of-ada" };

  it.each([
    ["none", "", {}, null],
    [
      "bearer",
      'serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN}"] }\n',
      { authorization: `Bearer ${env.TOKEN}` },
      {
        id: null,
        username: `bearer:${createHash("sha256").update(env.TOKEN).digest("hex").slice(0, 8)}`,
        email: null,
      },
    ],
    [
      "basic",
      'serve:\n  auth: { type: basic, users: { ada: "${env:PASSWORD}" } }\n',
      { authorization: basic("ada", env.PASSWORD) },
      { id: null, username: "ada", email: null },
    ],
  ])("is who serve let in under auth %s, never the secret", async (_, config, headers, user) => {
    const { send } = await createServe({ config, env, files: whoami });
    const reply = await send("GET", "/whoami", { headers });
    expect(json(reply)).toEqual({ user });
    expect(reply.text).not.toContain(env.TOKEN);
  });
});

describe("max_concurrent_runs", () => {
  it("answers 503 with Retry-After while every slot is taken; a refused key may run later", async () => {
    const { send, core } = await createServe({ config: "serve:\n  max_concurrent_runs: 1\n" });
    const hold = core.hold();
    const first = send("POST", "/transfers", { body: { amount: "1.00" } });
    await hold.entered;
    const busy = await send("GET", "/items/1");
    expectProblem(busy, 503);
    expect(busy.headers["retry-after"]).toBe("1");
    const keyed = { body: { amount: "2.00" }, headers: { "idempotency-key": "later" } };
    expectProblem(await send("POST", "/transfers", keyed), 503);
    hold.release();
    expect((await first).status).toBe(201);
    const later = await send("POST", "/transfers", keyed);
    expect(later.status).toBe(201);
    expect(later.headers["idempotent-replayed"]).toBeUndefined();
    expect(core.calls).toBe(2);
  });

  it("counts an async run until it ends, not until its 202", async () => {
    const { send, core } = await createServe({ config: "serve:\n  max_concurrent_runs: 1\n" });
    const hold = core.hold();
    expect((await send("POST", "/jobs", { body: {} })).status).toBe(202);
    await hold.entered;
    expectProblem(await send("GET", "/items/1"), 503);
    hold.release();
    const next = await eventually(async () => {
      const reply = await send("GET", "/items/1");
      return reply.status === 503 ? undefined : reply;
    });
    expect(next.status).toBe(200);
  });
});

describe("the log path", () => {
  const masked = { account: secretAccount, amount: "1.00" };

  it.each([
    ["a masked value in the query", "POST", "/transfers?account=", "/transfers?account=XXXXXXXXXXXX"],
    ["a masked value in the path", "POST", "/accounts/", "/accounts/XXXXXXXXXXXX/transfers"],
  ])("masks %s", async (_, method, prefix, logged) => {
    const { send } = await createServe();
    const url = prefix.startsWith("/accounts/")
      ? `${prefix}${secretAccount}/transfers`
      : `${prefix}${secretAccount}`;
    const reply = await send(method, url, { body: masked });
    expect(reply.status).toBe(201);
    expect(reply.logPath).toBe(logged);
  });

  it.each([
    ["the query", false, `/transfers?account=${secretAccount}`, "/transfers"],
    ["the path", false, `/accounts/${secretAccount}/transfers`, "/accounts/XXXXXXXXXXXX/transfers"],
    ["the path", true, `/accounts/${secretAccount}/transfers`, "/accounts/XXXXXXXXXXXX/transfers"],
  ])(
    "keeps a masked value in %s out of a replay's log path (after a restart: %s)",
    async (_, restart, url, logged) => {
      const { send, core, dir, idempotency } = await createServe();
      const headers = { "idempotency-key": "masked" };
      const first = await send("POST", url, { body: masked, headers });
      await idempotency.flush();
      const replay = await (restart ? (await createContext(dir, core)).send : send)("POST", url, {
        body: masked,
        headers,
      });
      expect(replay.headers["idempotent-replayed"]).toBe("true");
      expect(first.logPath).not.toContain(secretAccount);
      expect(replay.logPath).toBe(logged);
    },
  );

  it("keeps a masked value out of an async run's log path", async () => {
    const { send } = await createServe();
    const reply = await send("POST", `/jobs?account=${secretAccount}`, { body: { account: secretAccount } });
    expect(reply.status).toBe(202);
    expect(reply.logPath).not.toContain(secretAccount);
    expect(reply.logPath.startsWith("/jobs")).toBe(true);
  });
});

describe("serve's edge (Host and Origin)", () => {
  it("answers a request for another host 421, the admin routes too, and runs nothing", async () => {
    const { send, core } = await createServe();
    for (const url of ["/_bass/runs", "/transfers"]) {
      const reply = await send("POST", url, {
        body: { amount: "1.00" },
        headers: { host: "attacker.example" },
      });
      expectProblem(reply, 421);
    }
    expect(core.calls).toBe(0);
  });

  it("answers a cross-site POST 403 under auth none, and lets curl's in", async () => {
    const { send, core } = await createServe();
    const body = { account: "DE00", amount: "1.00" };
    const form = await send("POST", "/transfers", {
      body: "amount=1",
      type: "application/x-www-form-urlencoded",
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expectProblem(form, 403);
    expect(core.calls).toBe(0);
    expect((await send("POST", "/transfers", { body })).status).toBe(201);
  });

  it("lets the hosts and origins the project allows in", async () => {
    const { send } = await createServe({
      config: "serve:\n  allowed_hosts: [bass.test]\n  allowed_origins: ['https://app.example.com']\n",
    });
    const reply = await send("POST", "/transfers", {
      body: { account: "DE00", amount: "1.00" },
      headers: { host: "bass.test", origin: "https://app.example.com" },
    });
    expect(reply.status).toBe(201);
  });
});

describe("an endpoint's params", () => {
  const listed = `name: listed
endpoints:
  - method: GET
    path: /listed
    params:
      type: object
      required: [account]
      properties:
        account: { type: string, minLength: 1 }
        limit: { type: integer, minimum: 1 }
on_success_hook: "output.payload = { params: input.params }"
`;

  it("answers a query that does not match them 400, pointing at each parameter, and runs nothing", async () => {
    const { send, history } = await createServe({ files: { "integrations/listed.yaml": listed } });
    const reply = await send("GET", "/listed?limit=zero");
    expectProblem(reply, 400);
    const pointers = (json(reply).errors as { pointer: string }[]).map((error) => error.pointer);
    expect(pointers.sort()).toEqual(["#/account", "#/limit"]);
    await history.flush();
    expect(await history.list({ integration: "listed" })).toEqual([]);
  });

  it("lets a matching query in, as text: the run sees it as it came", async () => {
    const { send } = await createServe({ files: { "integrations/listed.yaml": listed } });
    const reply = await send("GET", "/listed?account=A1&limit=5");
    expect(reply.status).toBe(200);
    expect(json(reply)).toEqual({ params: { account: "A1", limit: "5" } });
  });
});

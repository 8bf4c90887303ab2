import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runServe, type ServeCommandOptions } from "../../src/cli/serve.js";
import type { RunRecord } from "../../src/engine/types.js";
import { isBassError } from "../../src/errors.js";
import { createHistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { captureOutput, createTempDir, runCli, stopSignal } from "../_helpers.js";
import { createFakeCore, createServeProject, secretAccount } from "./_project.js";
import { readRaw } from "./_raw-http.js";

interface Serving {
  url: string;
  /** Resolves `stopped` and returns what runServe returned. */
  stop(): Promise<number>;
  /** runServe's own promise: settles once it has stopped. */
  done: Promise<number>;
  stdout(): string;
  stderr(): string;
}

/** `bass serve` in-process on 127.0.0.1 and a free port, stopped when the test ends. */
async function startServe(dir: string, options: Partial<ServeCommandOptions> = {}): Promise<Serving> {
  const { output, stdout, stderr } = captureOutput();
  const { stopped, stop } = stopSignal();
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const done = runServe(
    {
      watch: false,
      insecure: false,
      cwd: dir,
      env: {},
      port: 0,
      ...options,
      stopped,
      onListening: listening,
    },
    output,
  );
  onTestFinished(async () => {
    stop();
    await done.catch(() => {});
  });
  const base = await Promise.race([
    url,
    done.then(() => {
      throw new Error(`bass serve stopped before it listened: ${stderr()}`);
    }),
  ]);
  return {
    url: base,
    stop: () => {
      stop();
      return done;
    },
    done,
    stdout,
    stderr,
  };
}

/** A copy of samples/ without its .bass folder: its own history and its own mock core data. */
function samplesCopy(): string {
  const dir = createTempDir();
  cpSync(join(import.meta.dirname, "..", "..", "samples"), dir, {
    recursive: true,
    filter: (path) => !path.includes(".bass"),
  });
  return dir;
}

/** A served project of the test integrations with its fake core. */
async function serveProject(config = "", options: Partial<ServeCommandOptions> = {}) {
  const core = createFakeCore();
  const dir = createServeProject(core, { config });
  return { core, dir, ...(await startServe(dir, options)) };
}

async function call(url: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("content-type", "application/json");
  const response = await fetch(url, {
    ...rest,
    headers,
    body: json === undefined ? rest.body : JSON.stringify(json),
    signal: AbortSignal.timeout(3000),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    text,
    json: () => JSON.parse(text),
  };
}

type Called = Awaited<ReturnType<typeof call>>;

function expectProblem(reply: Called, status: number) {
  expect([reply.status, reply.headers.get("content-type")]).toEqual([status, "application/problem+json"]);
  const problem = reply.json();
  expect(problem).toMatchObject({
    type: "about:blank",
    title: expect.any(String),
    status,
    detail: expect.any(String),
  });
  return problem;
}

/** Waits for `check` to give a value, a little at a time, for at most `ms`. */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`the condition did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A raw HTTP request with a body sent in chunks (no Content-Length), as a client that streams would. */
function sendChunked(url: string, chunks: string[]): Promise<{ status: number; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: "PUT", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, type: response.headers["content-type"] }),
        );
      },
    );
    request.setTimeout(3000, () => request.destroy(new Error("no answer within 3 s")));
    // The server may answer and close before the last chunk: that is the point, not a failure.
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe("bass serve over a real socket", () => {
  it("routes {param} to input.path and the query to input.params; 404 and 405 with Allow", async () => {
    const { url } = await serveProject();
    const found = await call(`${url}/items/42?tag=a&tag=b&one=1`);
    expect(found.status).toBe(200);
    expect(found.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(found.json()).toMatchObject({
      method: "GET",
      path: { item_id: "42" },
      params: { tag: ["a", "b"], one: "1" },
    });
    expectProblem(await call(`${url}/nope`), 404);
    const wrong = await call(`${url}/items/1`, { method: "POST", json: {} });
    expectProblem(wrong, 405);
    expect(wrong.headers.get("allow")).toBe("GET, PUT");
  });

  it("reads JSON, XML, forms and empty bodies; answers 400 and (over body_limit_bytes) 413", async () => {
    const { url, core } = await serveProject("serve:\n  body_limit_bytes: 256\n");
    const put = (body: string | undefined, type?: string) =>
      call(`${url}/items/1`, { method: "PUT", body, headers: type ? { "content-type": type } : {} });
    expect((await put('{"a":[1,2]}', "application/json")).json().payload).toEqual({ a: [1, 2] });
    expect((await put("<a><b>x</b></a>", "text/xml")).json().payload).toEqual({ a: { b: "x" } });
    expect((await put(undefined)).json().payload).toEqual({});
    expectProblem(await put('{"a":', "application/json"), 400);
    expectProblem(await put(`${"[".repeat(65)}${"]".repeat(65)}`, "application/json"), 400);
    expect((await put("a=1", "application/x-www-form-urlencoded")).json().payload).toEqual({ a: "1" });
    expectProblem(await put(JSON.stringify({ text: "x".repeat(246) }), "application/json"), 413);
    // Exactly at the limit is still read.
    const atLimit = JSON.stringify({ text: "x".repeat(245) });
    expect(atLimit).toHaveLength(256);
    expect((await put(atLimit, "application/json")).status).toBe(200);
    // A body without Content-Length is cut off once it passes the limit.
    expect(
      await sendChunked(`${url}/items/1`, ['{"text":"', "y".repeat(200), "y".repeat(200), '"}']),
    ).toEqual({
      status: 413,
      type: "application/problem+json",
    });
    expect((await call(`${url}/items/2`)).status).toBe(200);
    expect(core.calls).toBe(6);
  });

  it("sends an answer with non-ASCII text whole, its Content-Length counted in bytes", async () => {
    const { url } = await serveProject();
    const text = "café, 日本, 💶";
    const reply = await call(`${url}/items/1`, { method: "PUT", json: { text } });
    expect(reply.json().payload).toEqual({ text });
    expect(reply.headers.get("content-length")).toBe(String(reply.bytes.byteLength));
  });

  it("answers a body that fails request_schema with 400 and its errors", async () => {
    const { url, core } = await serveProject();
    const problem = expectProblem(
      await call(`${url}/strict`, { method: "POST", json: { amount: "1" } }),
      400,
    );
    expect(problem.errors).toEqual([{ pointer: "#/amount", message: expect.any(String) }]);
    expect(core.calls).toBe(0);
  });

  it("sends JSON by default, a byte string with its Content-Type, and the §12 default as the run left it", async () => {
    const { url } = await serveProject();
    const csv = await call(`${url}/outputs/csv`);
    expect([csv.status, csv.headers.get("content-type"), csv.text]).toEqual([
      200,
      "text/csv; charset=utf-8",
      "a,b\n1,2\n",
    ]);
    const failed = await call(`${url}/outputs/invalid`);
    expect([failed.status, failed.headers.get("content-type")]).toEqual([
      422,
      "application/json; charset=utf-8",
    ]);
    expect(failed.json().error).toMatchObject({
      code: "validation_failed",
      details: ["kind must not be invalid"],
    });
  });

  it("answers 401 with WWW-Authenticate to missing or wrong credentials, on admin routes too", async () => {
    const { url, core } = await serveProject(
      'serve:\n  auth: { type: basic, users: { ada: "${env:PASSWORD}" } }\n',
      {
        env: { PASSWORD: "lovelace-1815" },
      },
    );
    const basic = (password: string) => `Basic ${Buffer.from(`ada:${password}`).toString("base64")}`;
    for (const path of ["/items/1", "/_bass/health", "/_bass/runs"]) {
      for (const authorization of [undefined, basic("babbage")]) {
        const reply = await call(`${url}${path}`, { headers: authorization ? { authorization } : {} });
        expectProblem(reply, 401);
        expect(reply.headers.get("www-authenticate")).toBe('Basic realm="bass"');
      }
      expect(
        (await call(`${url}${path}`, { headers: { authorization: basic("lovelace-1815") } })).status,
      ).toBe(200);
    }
    expect(core.calls).toBe(1);
  });

  it("answers 503 with Retry-After over max_concurrent_runs", async () => {
    const { url, core } = await serveProject("serve:\n  max_concurrent_runs: 1\n");
    const hold = core.hold();
    const first = call(`${url}/items/1`);
    await hold.entered;
    const busy = await call(`${url}/items/2`);
    expectProblem(busy, 503);
    expect(busy.headers.get("retry-after")).toBe("1");
    hold.release();
    expect((await first).status).toBe(200);
    expect((await call(`${url}/items/3`)).status).toBe(200);
  });
});

describe("Idempotency-Key over a real socket", () => {
  const body = { amount: "5.00" };

  it("replays, answers 409 while running, 422 for another body and 400 for a bad key", async () => {
    const { url, core } = await serveProject();
    const post = (key: string, json: unknown = body) =>
      call(`${url}/transfers`, { method: "POST", json, headers: { "idempotency-key": key } });
    const hold = core.hold();
    const first = post("k-1");
    await hold.entered;
    expectProblem(await post("k-1"), 409);
    expectProblem(await post("k-1", { amount: "6.00" }), 422);
    hold.release();
    const answered = await first;
    expect(answered.status).toBe(201);
    expect(answered.headers.get("idempotent-replayed")).toBeNull();
    const replay = await post("k-1");
    expect([
      replay.status,
      replay.headers.get("idempotent-replayed"),
      replay.headers.get("location"),
    ]).toEqual([201, "true", answered.headers.get("location")]);
    expect(replay.text).toBe(answered.text);
    expectProblem(await post("k-1", { amount: "6.00" }), 422);
    expectProblem(await post("x".repeat(65)), 400);
    expect(core.calls).toBe(1);
  });

  it("remembers an answered key across a restart on the same project", async () => {
    const core = createFakeCore();
    const dir = createServeProject(core);
    const first = await startServe(dir);
    const post = (base: string) =>
      call(`${base}/transfers`, { method: "POST", json: body, headers: { "idempotency-key": "restart-1" } });
    const answered = await post(first.url);
    expect(await first.stop()).toBe(0);
    const second = await startServe(dir);
    const replay = await post(second.url);
    expect([replay.status, replay.headers.get("idempotent-replayed"), replay.text]).toEqual([
      201,
      "true",
      answered.text,
    ]);
    expect(core.calls).toBe(1);
  });
});

describe("async runs and admin routes over a real socket", () => {
  it("answers 202 at once, and /_bass/runs/{id} shows the run running, then ended", async () => {
    const { url, core } = await serveProject();
    const hold = core.hold();
    const accepted = await call(`${url}/jobs`, { method: "POST", json: { n: 1 } });
    expect(accepted.status).toBe(202);
    const { run_id: runId, status } = accepted.json();
    expect(status).toBe("started");
    await hold.entered;
    expect((await call(`${url}/_bass/runs/${runId}`)).json()).toMatchObject({ id: runId, status: "running" });
    expect((await call(`${url}/_bass/health`)).json()).toEqual({
      status: "ok",
      project: expect.any(String),
      integrations: 5,
      active_runs: 1,
    });
    hold.release();
    const ended = await eventually(async () => {
      const record = (await call(`${url}/_bass/runs/${runId}`)).json() as RunRecord;
      return record.status === "running" ? undefined : record;
    });
    expect(ended.status).toBe("success");
  });

  it("lists and shows masked runs, refuses path tricks, and serves the OpenAPI document", async () => {
    const { url } = await serveProject();
    await call(`${url}/transfers`, { method: "POST", json: { account: secretAccount, amount: "1.00" } });
    await call(`${url}/items/1`);
    const transfers = (await call(`${url}/_bass/runs?integration=transfers`)).json() as RunRecord[];
    expect(transfers.map((record) => record.integration)).toEqual(["transfers"]);
    const shown = await call(`${url}/_bass/runs/${transfers[0]?.id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("XXXXXXXXXXXX");
    expect(shown.text).not.toContain(secretAccount);
    expect((await call(`${url}/_bass/runs?status=success&limit=1`)).json()).toHaveLength(1);
    for (const path of [
      "/_bass/runs/../x",
      "/_bass/runs/%2e%2e%2fx",
      "/_bass/runs/..%5c..%5cetc",
      "/_bass/runs/abc",
    ])
      expectProblem(await call(`${url}${path}`), 404);
    const openapi = await call(`${url}/_bass/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(openapi.json().paths).toHaveProperty(["/transfers", "post"]);
  });
});

describe("the log line", () => {
  it("prints method, path, status, duration and run id per request, with masked values masked", async () => {
    const { url, stdout, dir } = await serveProject();
    const masked = { account: secretAccount, amount: "1.00" };
    const headers = { "idempotency-key": "logged" };
    await call(`${url}/transfers?account=${secretAccount}`, { method: "POST", json: masked });
    await call(`${url}/accounts/${secretAccount}/transfers`, { method: "POST", json: masked, headers });
    await call(`${url}/accounts/${secretAccount}/transfers`, { method: "POST", json: masked, headers });
    await call(`${url}/jobs?account=${secretAccount}`, { method: "POST", json: masked });
    await call(`${url}/nope`);
    const lines = await eventually(() => {
      const printed = stdout()
        .split("\n")
        .filter((line) => / \d+ ms/.test(line));
      return printed.length === 5 ? printed : undefined;
    });
    expect(stdout()).not.toContain(secretAccount);
    const runLine = /^(\S+) (\S+) (\d{3}) \d+ ms run ([0-9A-Z]{26})$/;
    expect(lines[0]).toMatch(runLine);
    expect(
      lines.map((line) => line.replace(/ \d+ ms/, " N ms").replace(/ run [0-9A-Z]{26}$/, " run ID")),
    ).toEqual([
      "POST /transfers?account=XXXXXXXXXXXX 201 N ms run ID",
      "POST /accounts/XXXXXXXXXXXX/transfers 201 N ms run ID",
      "POST /accounts/XXXXXXXXXXXX/transfers 201 N ms replayed",
      "POST /jobs?account=XXXXXXXXXXXX 202 N ms run ID",
      "GET /nope 404 N ms",
    ]);
    // The run id of the line is the id of the run's record.
    const id = runLine.exec(lines[0] ?? "")?.[4];
    const history = createHistoryStore(resolveHistoryOptions(dir));
    expect(await eventually(() => history.read(id ?? ""))).toMatchObject({ id, trigger: "http" });
  });
});

describe("listening", () => {
  it("refuses a non-loopback host without auth: runServe throws USAGE before it starts anything", async () => {
    const dir = createServeProject(createFakeCore());
    const refused = await runServe(
      {
        watch: false,
        insecure: false,
        cwd: dir,
        env: {},
        host: "0.0.0.0",
        port: 0,
        stopped: new Promise(() => {}),
      },
      captureOutput().output,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isBassError(refused) && refused.code).toBe("USAGE");
    expect((refused as Error).message).toMatch(/0\.0\.0\.0.*--insecure/);
  });

  it.each([["0.0.0.0"], ["::"], ["192.168.1.20"]])(
    "bass serve --host %s exits 2 without auth",
    async (host) => {
      const dir = createServeProject(createFakeCore());
      const result = await runCli(["serve", "--project", dir, "--host", host, "--port", "0"], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`refusing to serve on ${host} without auth`);
      expect(result.stdout).toBe("");
    },
  );
});

describe("a port that is taken", () => {
  it("makes bass serve exit 2 with a message, leaving no server or signal handler behind", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const { port } = blocker.address() as AddressInfo;
    // The samples talk to the embedded mock core, which listens before serve does.
    const dir = samplesCopy();
    const servers = () => process.getActiveResourcesInfo().filter((name) => name === "TCPServerWrap").length;
    const before = { servers: servers(), sigint: process.listenerCount("SIGINT") };
    const result = await runCli(["serve", "--project", dir, "--port", String(port)], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bass: bass serve cannot listen on 127.0.0.1:${port}: port ${port} is in use; --port 0 picks a free one\n`,
    );
    expect(process.listenerCount("SIGINT")).toBe(before.sigint);
    // A closed server's handle goes a moment after its close callback.
    await eventually(() => (servers() === before.servers ? true : undefined), 1000);
  });
});

describe("graceful shutdown", () => {
  /** serve of the test project, with the next call to its system held until released. */
  async function serveHeld() {
    const core = createFakeCore();
    const dir = createServeProject(core);
    const serving = await startServe(dir);
    return { dir, serving, hold: core.hold() };
  }

  it("answers a request in flight when stopped, then returns 0 with its record on disk", async () => {
    const { dir, serving, hold } = await serveHeld();
    const inFlight = call(`${serving.url}/transfers`, { method: "POST", json: { amount: "3.00" } });
    await hold.entered;
    void serving.stop();
    // Stopped: no new connection is accepted while the run finishes.
    await eventually(() =>
      fetch(`${serving.url}/_bass/health`, { signal: AbortSignal.timeout(500) }).then(
        () => undefined,
        () => true,
      ),
    );
    hold.release();
    const answer = await inFlight;
    expect(answer.status).toBe(201);
    expect(await serving.done).toBe(0);
    const records = await createHistoryStore(resolveHistoryOptions(dir)).list();
    expect(records).toEqual([
      expect.objectContaining({ integration: "transfers", status: "success", trigger: "http" }),
    ]);
  });

  it("lets a run that answered 202 finish before serve stops, its record whole", async () => {
    const { dir, serving, hold } = await serveHeld();
    const accepted = await call(`${serving.url}/jobs`, { method: "POST", json: { account: "12345678" } });
    expect(accepted.status).toBe(202);
    await hold.entered;
    let stopped = false;
    const done = serving.stop().then((code) => {
      stopped = true;
      return code;
    });
    // Not stopped while the run waits on its system.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    hold.release();
    expect(await done).toBe(0);
    const records = await createHistoryStore(resolveHistoryOptions(dir)).list();
    expect(records).toEqual([
      expect.objectContaining({ integration: "jobs", status: "success", labels: ["job"] }),
    ]);
  });
});

describe("answers on one connection", () => {
  it("go out in the order of the requests, pipelined on a keep-alive connection", async () => {
    const serving = await startServe(createServeProject(createFakeCore()));
    const { port } = new URL(serving.url);
    const kinds = ["a", "b", "c", "d"];
    const requests = kinds.map(
      (kind, index) =>
        `GET /outputs/${kind} HTTP/1.1\r\nHost: 127.0.0.1\r\n${index === kinds.length - 1 ? "Connection: close\r\n" : ""}\r\n`,
    );
    // All four in one write: the server reads them together and answers them in one turn or more.
    const answer = (await readRaw(Number(port), Buffer.from(requests.join("")))).toString("utf8");
    expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(kinds.map(() => "HTTP/1.1 200"));
    expect([...answer.matchAll(/\{"kind":"(\w)"\}/g)].map((found) => found[1])).toEqual(kinds);
  });
});

describe("--watch", () => {
  const good = "output.payload = { kind: input.path.kind }";

  it("serves a changed definition and a new one", async () => {
    const core = createFakeCore();
    const dir = createServeProject(core);
    const serving = await startServe(dir, { watch: true });
    const file = join(dir, "integrations", "outputs.yaml");
    const kind = async () => (await call(`${serving.url}/outputs/x`)).json();
    expect(await kind()).toEqual({ kind: "x" });

    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(good, "output.payload = { kind: input.path.kind, v: 2 }"),
    );
    writeFileSync(
      join(dir, "integrations", "added.yaml"),
      "name: added\nendpoints:\n  - { method: GET, path: /added }\non_success_hook: output.payload = 'new'\n",
    );
    await eventually(async () => ((await call(`${serving.url}/added`)).status === 200 ? true : undefined));
    expect(await kind()).toEqual({ kind: "x", v: 2 });
    expect((await call(`${serving.url}/added`)).json()).toBe("new");
    expect(serving.stdout()).toContain("reloaded: 10 endpoints of 6 integrations");
    expect(serving.stderr()).toBe("");
    expect(await serving.stop()).toBe(0);
  });

  it("restarts the systems when the project file changes them", async () => {
    const core = createFakeCore();
    const dir = createServeProject(core);
    const serving = await startServe(dir, { watch: true });
    expect((await call(`${serving.url}/items/1`)).json().call).toBe(1);
    writeFileSync(
      join(dir, "other.mjs"),
      "export const execute = () => ({ success: true, payload: { call: 'other' }, messages: [] });\n",
    );
    const config = join(dir, "bass.config.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("./core.mjs", "./other.mjs"));
    await eventually(async () =>
      (await call(`${serving.url}/items/1`)).json().call === "other" ? true : undefined,
    );
    expect(core.calls).toBeGreaterThanOrEqual(1);
    expect(serving.stdout()).toContain("reloaded: ");
    expect(await serving.stop()).toBe(0);
  });

  it.each<[string, string, (text: string) => string, string]>([
    [
      "a definition with an unknown key",
      "integrations/outputs.yaml",
      (text) => `${text}surprise: true\n`,
      "surprise",
    ],
    [
      "a request_schema that cannot be compiled",
      "integrations/outputs.yaml",
      (text) => `${text}request_schema: { type: 12 }\n`,
      "request_schema is not a JSON Schema 2020-12",
    ],
    [
      "a project file with an unset variable",
      "bass.config.yaml",
      (text) => `${text}history:\n  dir: \${env:BASS_TEST_UNSET}\n`,
      "BASS_TEST_UNSET",
    ],
    [
      "a project file whose adapter module is missing",
      "bass.config.yaml",
      (text) => text.replace("./core.mjs", "./missing.mjs"),
      "missing.mjs",
    ],
  ])(
    "keeps serving the last good set after %s, prints why, and loads the next good one",
    async (_, name, change, why) => {
      const core = createFakeCore();
      const dir = createServeProject(core);
      const serving = await startServe(dir, { watch: true });
      const file = join(dir, name);
      const kind = async () => (await call(`${serving.url}/outputs/x`)).json();
      const original = readFileSync(file, "utf8");
      expect(await kind()).toEqual({ kind: "x" });

      writeFileSync(file, change(original));
      await eventually(() => (serving.stderr().includes(why) ? true : undefined));
      expect(serving.stderr()).toContain("still serving the last good set");
      expect(serving.stdout()).not.toContain("reloaded");
      expect(await kind()).toEqual({ kind: "x" });
      expect(core.calls).toBe(2);

      writeFileSync(file, original);
      const outputs = join(dir, "integrations", "outputs.yaml");
      writeFileSync(
        outputs,
        readFileSync(outputs, "utf8").replace(good, "output.payload = { kind: input.path.kind, v: 3 }"),
      );
      await eventually(async () => ((await kind()).v === 3 ? true : undefined));
      expect(await serving.stop()).toBe(0);
    },
  );
});

describe("the five samples served (SPEC §10)", () => {
  it("answer the documented series of calls against the embedded mock core", async () => {
    const dir = samplesCopy();
    const { url, stop } = await startServe(dir);
    const api = `${url}/api/v1/core-processor`;
    const post = (path: string, json: unknown, key?: string) =>
      call(`${api}${path}`, { method: "POST", json, headers: key ? { "idempotency-key": key } : {} });
    const grace = JSON.parse(readFileSync(join(dir, "inputs", "customers.create.json"), "utf8"));

    const created = await post("/customers", grace);
    expect([created.status, created.json()]).toEqual([
      201,
      { customer_id: "P000042", status: "active", created_at: expect.any(String) },
    ]);

    const opened = await post("/deposit-accounts", {
      customer_id: "P000042",
      product_type: "checking",
      currency: "USD",
      initial_deposit: "500.00",
    });
    expect(opened.status).toBe(201);
    expect(opened.json()).toMatchObject({
      account_number: "1000000042",
      customer_id: "P000042",
      product_type: "checking",
      currency: "USD",
      balance: { current: "500.00", available: "500.00" },
    });

    const transfer = {
      from_account_number: "1000000042",
      to_account_number: "1000000001",
      amount: "150.00",
      currency: "USD",
      memo: "rent",
    };
    const posted = await post("/monetary-internal-transfers", transfer, "transfer-0001");
    expect(posted.status).toBe(201);
    expect(posted.json()).toMatchObject({
      status: "posted",
      amount: "150.00",
      currency: "USD",
      from_account_number: "1000000042",
      to_account_number: "1000000001",
    });
    const repeated = await post("/monetary-internal-transfers", transfer, "transfer-0001");
    expect([repeated.status, repeated.headers.get("idempotent-replayed"), repeated.text]).toEqual([
      201,
      "true",
      posted.text,
    ]);

    const listed = await call(`${api}/monetary-transactions?account_number=1000000042`);
    expect(listed.status).toBe(200);
    const debits = (listed.json().transactions as { direction: string; amount: string }[]).filter(
      (line) => line.direction === "debit",
    );
    expect(debits).toEqual([expect.objectContaining({ amount: "150.00", currency: "USD" })]);

    const retrieved = await call(`${api}/customers?customer_id=P000042`);
    expect([retrieved.status, retrieved.json()]).toEqual([
      200,
      expect.objectContaining({
        customer_id: "P000042",
        first_name: "Grace",
        tax_id_last4: "6789",
        status: "active",
      }),
    ]);
    const unknown = await call(`${api}/customers?customer_id=P999999`);
    expect([unknown.status, unknown.json().error?.code]).toEqual([404, "not_found"]);
    expect((await call(`${api}/customers`)).status).toBe(400);

    const tooMuch = await post(
      "/monetary-internal-transfers",
      { ...transfer, amount: "99999.00" },
      "transfer-0002",
    );
    expect([tooMuch.status, tooMuch.json().error?.code]).toEqual([422, "insufficient_funds"]);

    const bad = await post("/customers", {
      first_name: " ",
      email: "nope",
      date_of_birth: "2001-02-30",
      tax_id: "12",
    });
    expect(bad.status).toBe(422);
    expect(bad.json().error.details).toEqual([
      "first_name is required",
      "last_name is required",
      "email must be an e-mail address",
      "date_of_birth must be a past date in the form YYYY-MM-DD",
      "tax_id must have the form NNN-NN-NNNN",
    ]);

    // What bass keeps of these runs holds neither the tax id nor the transfer's account numbers.
    const runs = await call(`${url}/_bass/runs?limit=100`);
    expect(runs.text).toContain("XXXXXXXXXXXX");
    expect(runs.text).not.toContain(grace.tax_id);
    const transfers = await call(`${url}/_bass/runs?integration=monetary-internal-transfers.create`);
    expect(transfers.text).not.toContain("1000000042");
    expect(await stop()).toBe(0);
  });
});

describe("what bass serve prints as it starts and stops", () => {
  it("lists its routes and admin address after the listening line, and says when it stopped", async () => {
    const serving = await startServe(samplesCopy());
    const printed = serving.stdout().split("\n");
    expect(printed[0]).toMatch(
      /^bass serve listening on http:\/\/127\.0\.0\.1:\d+ \(6 endpoints of 6 integrations\)$/,
    );
    expect(printed.slice(1, 9)).toEqual([
      "  POST /api/v1/core-processor/customers                    → customers.create",
      "  GET /api/v1/core-processor/customers                     → customers.retrieve",
      "  POST /api/v1/core-processor/deposit-accounts             → deposit-accounts.create",
      "  POST /api/v1/core-processor/monetary-internal-transfers  → monetary-internal-transfers.create",
      "  GET /api/v1/core-processor/monetary-transactions         → monetary-transactions.retrieve",
      "  POST /api/v1/core-processor/onboardings                  → onboarding.create",
      `  run history page: ${serving.url}/_bass/`,
      `  admin: ${serving.url}/_bass/health, /_bass/runs, /_bass/openapi.json`,
    ]);
    expect(await serving.stop()).toBe(0);
    expect(serving.stdout()).toMatch(/bass serve stopped\n$/);
  });
});

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it, onTestFinished } from "vitest";
import type { AdapterRequest } from "../../src/adapters/adapter.js";
import { createRunId } from "../../src/engine/run-id.js";
import type { RunRecord } from "../../src/engine/types.js";
import { openRequest } from "../../src/history/kept-request.js";
import { createRunPool } from "../../src/pool/run-pool.js";
import { openProjectFiles } from "../../src/project/open-files.js";
import { createServeApp } from "../../src/serve/app.js";
import type { HandledResponse } from "../../src/serve/context.js";
import { openStateKey } from "../../src/state/state-key.js";
import { createTempDir, runCli } from "../_helpers.js";
import { createFakeCore, createServeProject, secretAccount } from "./_project.js";
import { startServeInProcess } from "./_serve-in-process.js";

const host = "127.0.0.1:3000";

/** A served project whose core keeps every request it gets, and a way to call serve without a socket. */
async function createServe(
  config = "",
  env: Record<string, string> = {},
  files: Record<string, string> = {},
) {
  const core = createFakeCore();
  const seen: AdapterRequest[] = [];
  const execute = core.execute.bind(core);
  core.execute = (request, context) => {
    seen.push(request);
    return execute(request, context);
  };
  const dir = createServeProject(core, { config, files });
  const app = await createServeApp({ cwd: dir, env: { TOKEN: "s3cret-token", ...env }, projectDir: dir });
  onTestFinished(() => app.close());
  const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const reply = await app.handle({
      method,
      url,
      headers: { host, "content-type": "application/json", ...headers },
      body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
    });
    return { ...reply, text: Buffer.from(reply.body).toString("utf8") };
  };
  return { app, dir, seen, send };
}

const json = (reply: { text: string }) => JSON.parse(reply.text);

describe("the run history page's files", () => {
  it("serves the page, its script and its style with a policy that loads nothing from elsewhere", async () => {
    const { send } = await createServe();
    const page = await send("GET", "/_bass/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers["content-security-policy"]).toContain("connect-src 'self'");
    expect(page.text).toContain('<script src="/_bass/app.js" defer></script>');
    expect((await send("HEAD", "/_bass/")).status).toBe(200);
    for (const [file, type] of [
      ["app.js", "text/javascript; charset=utf-8"],
      ["app.css", "text/css; charset=utf-8"],
    ]) {
      const reply = await send("GET", `/_bass/${file}`);
      expect([reply.status, reply.headers["content-type"]]).toEqual([200, type]);
      expect(reply.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
  });

  it("is small: under 100 KB gzipped in all", () => {
    const dir = join(import.meta.dirname, "..", "..", "dist", "ui");
    const total = readdirSync(dir).reduce(
      (sum, file) => sum + gzipSync(readFileSync(join(dir, file))).byteLength,
      0,
    );
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThan(100 * 1024);
    // What is served is what was built.
    expect(gunzipSync(gzipSync(readFileSync(join(dir, "index.html")))).toString()).toContain("run history");
  });

  it("needs no credential under bearer auth, while the data routes do", async () => {
    const { send } = await createServe('serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN}"] }\n');
    expect((await send("GET", "/_bass/")).status).toBe(200);
    expect((await send("GET", "/_bass/app.js")).status).toBe(200);
    for (const route of ["/_bass/runs", "/_bass/events", "/_bass/integrations"]) {
      const reply = await send("GET", route);
      expect([route, reply.status, reply.headers["www-authenticate"]]).toEqual([
        route,
        401,
        'Bearer realm="bass"',
      ]);
    }
    const authorized = await send("GET", "/_bass/runs", undefined, { authorization: "Bearer s3cret-token" });
    expect(authorized.status).toBe(200);
  });
});

describe("GET /_bass/runs for the page", () => {
  it("pages with before and finds runs by a text their masked record holds", async () => {
    const { send } = await createServe();
    for (const amount of [1, 2, 3]) await send("POST", "/transfers", { amount, note: `note-${amount}` });
    const all = json(await send("GET", "/_bass/runs?limit=10")) as RunRecord[];
    expect(all).toHaveLength(3);
    const firstPage = json(await send("GET", "/_bass/runs?limit=2")) as RunRecord[];
    const next = json(await send("GET", `/_bass/runs?limit=2&before=${firstPage[1]?.id}`)) as RunRecord[];
    expect([...firstPage, ...next].map((run) => run.id)).toEqual(all.map((run) => run.id));
    const found = json(await send("GET", "/_bass/runs?q=NOTE-2")) as RunRecord[];
    expect(found.map((run) => run.id)).toEqual([all[1]?.id]);
    expect((await send("GET", "/_bass/runs?before=nope")).status).toBe(400);
  });

  it("never finds a run by a value its record masks", async () => {
    const { send } = await createServe();
    await send("POST", `/accounts/${secretAccount}/transfers`, { amount: 5, account: secretAccount });
    expect(json(await send("GET", `/_bass/runs?q=${secretAccount}`))).toEqual([]);
  });

  it("lists the project's integrations for the page's filter", async () => {
    const { send } = await createServe();
    const names = (json(await send("GET", "/_bass/integrations")) as { name: string }[]).map(
      (one) => one.name,
    );
    expect(names).toEqual(expect.arrayContaining(["items", "transfers", "strict"]));
  });
});

describe("GET /_bass/events", () => {
  it("sends each run's summary as it is written, to every open stream, and ends them when serve stops", async () => {
    const { app, send } = await createServe();
    const events = await send("GET", "/_bass/events");
    expect(events.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    const received: string[] = [];
    let ended = false;
    const close = (events as HandledResponse).stream?.({
      write: (text) => void received.push(text),
      end: () => {
        ended = true;
      },
    });
    expect(close).toBeTypeOf("function");
    const { runId } = await send("POST", "/transfers", { amount: 7 });
    await app.history.flush();
    const run = received.find((text) => text.startsWith("event: run\n"));
    const data = JSON.parse(run?.split("data: ")[1] ?? "null");
    expect(data).toEqual({
      id: runId,
      integration: "transfers",
      status: "success",
      trigger: "http",
      started_at: expect.any(String),
      duration_ms: expect.any(Number),
      labels: [],
      method: "POST",
      path: "/transfers",
      http_status: expect.any(Number),
    });
    await app.close();
    expect(ended).toBe(true);
  });
});

describe("GET /_bass/events over a socket", () => {
  it("streams runs to a client while another leaves, and ends the stream when serve stops", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
      "integrations/ping.yaml":
        'name: ping\nendpoints: [{ method: POST, path: /ping }]\non_success_hook: "output.payload = { pong: true }"\n',
    });
    const serve = await startServeInProcess(dir);
    const origin = `http://127.0.0.1:${serve.port}`;
    const open = async () => {
      const stop = new AbortController();
      const response = await fetch(`${origin}/_bass/events`, { signal: stop.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      const until = async (pattern: RegExp) => {
        while (!pattern.test(text)) {
          const { value, done } = await reader.read();
          if (done) return false;
          text += decoder.decode(value, { stream: true });
        }
        return true;
      };
      return { response, until, text: () => text, stop: () => stop.abort() };
    };
    const leaving = await open();
    const staying = await open();
    expect(leaving.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await staying.until(/^retry: 2000\n\n/)).toBe(true);
    leaving.stop();
    const answer = await fetch(`${origin}/ping`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(answer.status).toBe(200);
    expect(
      await staying.until(/event: run\ndata: \{"id":"\w{26}","integration":"ping","status":"success"/),
    ).toBe(true);
    const stopping = serve.stop();
    // Serve ends the stream whole, then stops: the client reads to its end.
    expect(await staying.until(/$^/)).toBe(false);
    expect((await stopping).code).toBe(0);
  });
});

describe("POST /_bass/runs/{id}/rerun", () => {
  it("runs the request again exactly, masked values and all, and links the new record to the old", async () => {
    const { send, seen, app, dir } = await createServe();
    const first = await send("POST", `/accounts/${secretAccount}/transfers`, {
      amount: 5,
      account: secretAccount,
    });
    expect(first.status).toBe(201);
    const answer = json(await send("POST", `/_bass/runs/${first.runId}/rerun`));
    expect(answer).toEqual({ run_id: expect.any(String), status: 201, exact: true, masked: [] });
    // The core got the account number itself both times: the re-run's request was the first's.
    expect(seen.map((request) => (request.payload as { body: { account: string } }).body.account)).toEqual([
      secretAccount,
      secretAccount,
    ]);
    const again = json(await send("GET", `/_bass/runs/${answer.run_id}`)) as RunRecord;
    expect(again).toMatchObject({ trigger: "rerun", rerun_of: first.runId, integration: "transfers" });
    expect(again).not.toHaveProperty("sealed_request");
    // On disk the request is kept sealed: the account number is nowhere in the history's files.
    await app.history.flush();
    const historyDir = join(dir, ".bass", "history");
    const files = readdirSync(historyDir).map((file) => readFileSync(join(historyDir, file), "utf8"));
    expect(files.join("")).toContain('"sealed_request":"v1.');
    expect(files.join("")).not.toContain(secretAccount);
  });

  it("runs the request again exactly when worker threads ran it", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  echo:\n    adapter: echo\nserve:\n  workers: 1\n",
      // The length of the account tells the real number (10 digits) from its mask (12 X's).
      "integrations/accounts.yaml": `name: accounts
endpoints: [{ method: POST, path: /accounts }]
masks: [{ type: INPUT, field: account }]
on_success_hook: "output.payload = { length: input.payload.account.length }"
`,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const post = (url: string, body?: unknown) =>
      app.handle({
        method: "POST",
        url,
        headers: { host, "content-type": "application/json" },
        body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
      });
    const first = await post("/accounts", { account: secretAccount });
    const answer = JSON.parse(Buffer.from((await post(`/_bass/runs/${first.runId}/rerun`)).body).toString());
    expect(answer).toMatchObject({ status: 200, exact: true });
    const again = (await app.history.read(answer.run_id)) as RunRecord;
    expect(again.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { payload: { length: 10 } } });
  });

  it("links a re-run whose worker failed it to the run it ran again", async () => {
    const dir = createTempDir({ "bass.config.yaml": "systems: {}\n" });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const pool = createRunPool({ project, cwd: dir, env: {}, workers: 1 });
    onTestFinished(() => pool.close());
    const of = createRunId();
    const result = pool.failed({ integration: "x", trigger: "rerun", rerunOf: of }, new Error("no worker"));
    expect(JSON.parse(result.recordLine)).toMatchObject({
      trigger: "rerun",
      rerun_of: of,
      status: "failure",
    });
  });

  it("runs the masked request under history.keep_requests: false, and names the masked fields", async () => {
    const { send, seen } = await createServe("history:\n  keep_requests: false\n");
    const first = await send("POST", "/transfers", { amount: 5, account: secretAccount });
    const answer = json(await send("POST", `/_bass/runs/${first.runId}/rerun`));
    expect(answer).toEqual({
      run_id: expect.any(String),
      status: 201,
      exact: false,
      masked: ["payload.account"],
    });
    expect(seen.map((request) => (request.payload as { body: { account: string } }).body.account)).toEqual([
      secretAccount,
      "XXXXXXXXXXXX",
    ]);
  });

  it("keeps no request under store_payloads: false unless keep_requests says so", async () => {
    const { send } = await createServe("history:\n  store_payloads: false\n");
    const first = await send("POST", "/transfers", { amount: 5, account: secretAccount });
    expect(json(await send("POST", `/_bass/runs/${first.runId}/rerun`))).toMatchObject({ exact: false });
  });

  it("keeps serve's own credential out of the request, and re-runs with the caller's", async () => {
    const { send, dir, app } = await createServe(
      'serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN_A}", "${env:TOKEN_B}"] }\n',
      { TOKEN_A: "token-of-ann-a", TOKEN_B: "token-of-bob-b" },
      {
        "integrations/whoami.yaml":
          'name: whoami\nendpoints: [{ method: POST, path: /whoami }]\non_success_hook: "output.payload = { last: input.headers.authorization.slice(-1) }"\n',
      },
    );
    const first = await send("POST", "/whoami", {}, { authorization: "Bearer token-of-ann-a" });
    const answer = json(
      await send("POST", `/_bass/runs/${first.runId}/rerun`, undefined, {
        authorization: "Bearer token-of-bob-b",
      }),
    );
    expect(answer).toMatchObject({ status: 200, exact: true });
    const again = (await app.history.read(answer.run_id)) as RunRecord;
    expect(again.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { payload: { last: "b" } } });
    const sealer = await openStateKey(dir, {});
    const stored = await app.history.readStored(first.runId as string);
    const kept = openRequest(sealer, first.runId as string, stored?.sealedRequest as string);
    expect(kept?.headers).not.toHaveProperty("authorization");
  });

  it("answers 409 for a run that has no request, and 400 for one the endpoint's schema refuses now", async () => {
    const { send, app } = await createServe();
    const at = new Date().toISOString();
    const base = {
      status: "failure",
      trigger: "http",
      started_at: at,
      ended_at: at,
      duration_ms: 0,
    } as const;
    const died: RunRecord = {
      ...base,
      id: createRunId(),
      integration: "transfers",
      labels: [],
      async: false,
      items: [],
    };
    const input = {
      method: "POST",
      fullpath: "/strict",
      path: {},
      params: {},
      headers: {},
      payload: { nope: 1 },
    };
    const refused: RunRecord = {
      ...died,
      id: createRunId(),
      integration: "strict",
      items: [{ seq: 1, at, kind: "INPUT", data: input }],
    };
    app.history.write(died);
    app.history.write(refused);
    await app.history.flush();
    expect((await send("POST", `/_bass/runs/${died.id}/rerun`)).status).toBe(409);
    const problem = await send("POST", `/_bass/runs/${refused.id}/rerun`);
    expect(problem.status).toBe(400);
    expect(json(problem).detail).toContain("request_schema");
  });

  it("answers 404 for a run that is not there, and 405 to another method", async () => {
    const { send } = await createServe();
    expect((await send("POST", "/_bass/runs/01M80AN5Y62YTE3T5G3NSKQ4K3/rerun")).status).toBe(404);
    expect((await send("GET", "/_bass/runs/01M80AN5Y62YTE3T5G3NSKQ4K3/rerun")).status).toBe(405);
  });
});

describe("GET /_bass/runs/{id}/case", () => {
  it("answers the run as a test case, as bass history promote writes it", async () => {
    const { send } = await createServe();
    const first = await send("POST", "/transfers", { amount: 5, account: secretAccount });
    const reply = await send("GET", `/_bass/runs/${first.runId}/case`);
    expect(reply.status).toBe(200);
    expect(reply.headers["content-disposition"]).toBe(
      `attachment; filename="transfers.${first.runId}.test.yaml"`,
    );
    expect(reply.text).toMatch(/^integration: transfers\ncases:\n {2}- name: run /);
    expect(reply.text).not.toContain(secretAccount);
  });
});

describe("bass history rerun", () => {
  it("runs a recorded run again from the terminal, with its kept request", async () => {
    const { send, app, dir, seen } = await createServe();
    const first = await send("POST", "/transfers", { amount: 9, account: secretAccount });
    await app.close();
    const { code, stdout } = await runCli(["history", "rerun", first.runId as string, "--json"], {
      cwd: dir,
      env: { NO_COLOR: "1" },
    });
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as { history: RunRecord };
    expect(printed.history).toMatchObject({ trigger: "rerun", rerun_of: first.runId, status: "success" });
    expect(seen.at(-1)?.payload).toMatchObject({ body: { account: secretAccount, amount: 9 } });
    const listed = await runCli(["history", "--trigger", "rerun", "--json"], {
      cwd: dir,
      env: { NO_COLOR: "1" },
    });
    expect((JSON.parse(listed.stdout) as RunRecord[]).map((run) => run.rerun_of)).toEqual([first.runId]);
  });

  it("says which fields go masked when the request was not kept", async () => {
    const { send, app, dir } = await createServe("history:\n  keep_requests: false\n");
    const first = await send("POST", "/transfers", { amount: 9, account: secretAccount });
    await app.close();
    const { code, stderr } = await runCli(["history", "rerun", first.runId as string], {
      cwd: dir,
      env: { NO_COLOR: "1" },
    });
    expect(code).toBe(0);
    expect(stderr).toContain("these fields go masked, as its record holds them: payload.account");
  });
});

import { connect } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import { createServeApp } from "../../src/serve/app.js";
import { type StartServerOptions, startServer } from "../../src/serve/server.js";
import { createTempDir } from "../_helpers.js";
import { parseRawAnswer, readRaw, sendRaw } from "./_raw-http.js";

/** serve's server on a one-endpoint project, with short time-outs; the log lines it wrote. */
async function startCorners(options: Partial<StartServerOptions> = {}) {
  const dir = createTempDir({
    "bass.config.yaml": "{}\n",
    "integrations/a.yaml":
      'name: a\nendpoints:\n  - { method: POST, path: /a }\non_success_hook: "output.payload = { ok: true }"\n',
  });
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, adapters: () => echoAdapter });
  const lines: string[] = [];
  const unexpected: unknown[] = [];
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    bodyLimitBytes: 1024,
    headersTimeoutMs: 300,
    requestTimeoutMs: 600,
    handle: app.handle,
    log: (line) => lines.push(line),
    logError: (error) => unexpected.push(error),
    ...options,
  });
  onTestFinished(async () => {
    await server.close(0);
    await app.close();
    expect(unexpected).toEqual([]);
  });
  return { port: Number(new URL(server.url).port), lines };
}

const wire = (text: string) => Buffer.from(text, "latin1");
/** Every status line in what came back: more than one would be two responses to one request. */
const statusLines = (raw: Buffer) => raw.toString("latin1").match(/HTTP\/1\.1 \d{3}/g) ?? [];

function expectProblem(raw: Buffer, status: number) {
  const answer = parseRawAnswer(raw);
  if (answer.kind !== "response") throw new Error("no response");
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(JSON.parse(answer.body.toString("utf8"))).toMatchObject({ status });
}

describe("serve's HTTP corners (over a raw socket)", () => {
  it("answers headers that do not arrive in time with 408", async () => {
    const { port, lines } = await startCorners();
    const raw = await readRaw(port, wire("POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\n"), { timeoutMs: 5000 });
    expectProblem(raw, 408);
    expect(lines).toContain("- - 408 0 ms");
  });

  it("answers a body that trickles past the request time-out with one 408", async () => {
    const { port } = await startCorners();
    const head =
      "POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{";
    const raw = await readRaw(port, wire(head), { timeoutMs: 5000 });
    expect(statusLines(raw)).toHaveLength(1);
    expectProblem(raw, 408);
  });

  it("answers 413 before 100 Continue to a declared body over the limit", async () => {
    const { port, lines } = await startCorners();
    const head =
      "POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\nExpect: 100-continue\r\n\r\n";
    const raw = await readRaw(port, wire(head));
    expect(raw.toString("latin1")).not.toContain("100 Continue");
    expectProblem(raw, 413);
    expect(lines).toContain("POST /a 413 0 ms");
  });

  it("sends 100 Continue to a body within the limit, then the answer", async () => {
    const { port } = await startCorners();
    const answered = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect(port, "127.0.0.1", () =>
        socket.write(
          "POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n",
        ),
      );
      socket.on("data", (chunk) => {
        text += chunk.toString("latin1");
        if (text.startsWith("HTTP/1.1 100 Continue\r\n\r\n") && !text.includes("200")) socket.write("{}");
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
    });
    expect(answered).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it("answers a request without Host with serve's own 400 problem", async () => {
    const { port } = await startCorners();
    const raw = await readRaw(
      port,
      wire("POST /a HTTP/1.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"),
    );
    expectProblem(raw, 400);
    expect(parseRawAnswer(raw)).toMatchObject({ kind: "response" });
  });

  it("answers CONNECT with a 405 problem", async () => {
    const { port, lines } = await startCorners();
    const raw = await readRaw(
      port,
      wire("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
    );
    expectProblem(raw, 405);
    expect(lines).toContain("CONNECT - 405 0 ms");
  });

  it("sends one response to a request without Host and with a broken chunk", async () => {
    const { port } = await startCorners();
    const request =
      "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
    const raw = await readRaw(port, wire(request));
    expect(statusLines(raw)).toHaveLength(1);
  });

  it("keeps to serve.max_connections: one more closes the connection idle the longest and is answered", async () => {
    const { port } = await startCorners({ maxConnections: 2 });
    const held = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(port, "127.0.0.1", () => resolve(socket));
            socket.on("error", () => {});
          }),
      ),
    );
    const closed = held.map((socket) => new Promise((resolve) => socket.once("close", resolve)));
    const over = await sendRaw(
      port,
      wire(
        "POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      ),
    );
    expect(over).toMatchObject({ kind: "response", status: 200 });
    await Promise.race(closed);
    for (const socket of held) socket.destroy();
  });
});

describe("a broken request pipelined behind a good one", () => {
  it("leaves the good one its own answer, and closes the connection after it", async () => {
    const { port } = await startCorners();
    const good =
      "POST /a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    const raw = await readRaw(port, wire(`${good}GARBAGE /x HTTP/9.9\r\n\r\n`));
    const lines = statusLines(raw);
    expect(lines[0]).toBe("HTTP/1.1 200");
    expect(lines.length).toBeLessThanOrEqual(2);
  });
});

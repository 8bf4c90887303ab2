import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { copySamples, createTempDir } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

/** A project with one quick POST endpoint, `/ping`, and the serve settings given. */
function pingProject(serve: Record<string, unknown>): Record<string, string> {
  return {
    "bass.config.yaml": stringify({ systems: {}, serve }),
    "integrations/ping.yaml": stringify({
      name: "ping",
      endpoints: [{ method: "POST", path: "/ping" }],
      on_success_hook: "output.payload = { pong: true }",
    }),
  };
}

async function ping(url: string): Promise<number> {
  const response = await fetch(`${url}/ping`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
    signal: AbortSignal.timeout(15_000),
  });
  await response.text();
  return response.status;
}

/**
 * A ping on a connection of its own, as a new client sends it: a kept-alive connection that sits idle
 * between two pings may be the one closed to make room, which HTTP allows a server.
 */
function pingAlone(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}/ping`,
      { method: "POST", agent: false, headers: { "content-type": "application/json" }, timeout: 15_000 },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on("error", reject);
    sent.end("{}");
  });
}

interface HeldSocket {
  socket: Socket;
  /** What came back on it so far. */
  received(): string;
  /** Resolves when serve closed it (or it broke). */
  closed: Promise<void>;
  isClosed(): boolean;
}

/**
 * A connection to serve that sends `first` (nothing by default) and then whatever `then` writes; it reads
 * what comes back unless `reads` is false, as a client that never reads (and so never sees serve close it).
 */
function hold(port: number, first = "", reads = true): Promise<HeldSocket> {
  return new Promise((resolve, reject) => {
    let text = "";
    let ended = false;
    const socket = connect(port, "127.0.0.1");
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        ended = true;
        done();
      }),
    );
    socket.on("error", () => {});
    if (reads) socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.once("connect", () => {
      if (first) socket.write(first);
      resolve({ socket, received: () => text, closed, isClosed: () => ended });
    });
    socket.once("error", reject);
  });
}

async function holdMany(port: number, count: number, first = "", reads = true): Promise<HeldSocket[]> {
  const held: HeldSocket[] = [];
  // One after the other: their order is the order serve sees them in.
  for (let index = 0; index < count; index++) held.push(await hold(port, first, reads));
  return held;
}

const portOf = (url: string) => Number(new URL(url).port);
const count = (text: string, line: string) => text.split("\n").filter((each) => each === line).length;

describe.each([
  ["default workers", {}],
  ["serve.workers 0", { workers: 0 }],
])("serve's connections against idle and trickling clients, %s", (_, workers) => {
  it("closes sockets that send nothing and never read at the headers time-out, and answers a client after", async () => {
    const server = await spawnServe(
      createTempDir(pingProject({ ...workers, max_connections: 20, headers_timeout_ms: 500 })),
    );
    const port = portOf(server.url);
    await holdMany(port, 20, "", false);
    // Each got its 408, unread; serve closed it rather than waiting for a client that never reads.
    await expect.poll(() => count(server.output(), "- - 408 0 ms"), { timeout: 20_000 }).toBe(20);
    expect(await ping(server.url)).toBe(200);
    expect(await ping(server.url)).toBe(200);
  }, 60_000);

  it("answers a new client at serve.max_connections by closing the connection idle the longest", async () => {
    const server = await spawnServe(
      createTempDir(pingProject({ ...workers, max_connections: 20, headers_timeout_ms: 60_000 })),
    );
    const port = portOf(server.url);
    const held = await holdMany(port, 20);
    expect(await ping(server.url)).toBe(200);
    await (held[0] as HeldSocket).closed;
    expect(held.slice(1).filter((each) => each.isClosed())).toHaveLength(0);
    for (const each of held) each.socket.destroy();
  }, 60_000);

  it("counts a request whose body is still arriving as idle: a newcomer closes the oldest", async () => {
    const server = await spawnServe(
      createTempDir(
        pingProject({
          ...workers,
          max_connections: 20,
          headers_timeout_ms: 60_000,
          request_timeout_ms: 60_000,
        }),
      ),
    );
    const body =
      "POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    const held = await holdMany(portOf(server.url), 20, body);
    expect(await ping(server.url)).toBe(200);
    await (held[0] as HeldSocket).closed;
    expect(held.slice(1).filter((each) => each.isClosed())).toHaveLength(0);
    for (const each of held) each.socket.destroy();
  }, 60_000);

  it("answers a new client with the default 512 connections held idle", async () => {
    const server = await spawnServe(createTempDir(pingProject({ ...workers })));
    const held = await holdMany(portOf(server.url), 512);
    expect(await ping(server.url)).toBe(200);
    await (held[0] as HeldSocket).closed;
    for (const each of held) each.socket.destroy();
  }, 120_000);

  it("answers clients while idle sockets reconnect as fast as serve closes them", async () => {
    const server = await spawnServe(
      createTempDir(pingProject({ ...workers, max_connections: 20, headers_timeout_ms: 60_000 })),
    );
    const port = portOf(server.url);
    let reconnecting = true;
    const sockets = new Set<Socket>();
    const attack = async (): Promise<void> => {
      while (reconnecting) {
        const each = await hold(port).catch(() => undefined);
        if (!each) continue;
        sockets.add(each.socket);
        await each.closed;
        sockets.delete(each.socket);
      }
    };
    const attackers = Array.from({ length: 20 }, attack);
    for (let round = 0; round < 10; round++) expect(await pingAlone(server.url)).toBe(200);
    reconnecting = false;
    for (const socket of sockets) socket.destroy();
    await Promise.all(attackers);
  }, 60_000);

  it("closes trickled headers and trickled bodies at their time-outs with a 408", async () => {
    const server = await spawnServe(
      createTempDir(pingProject({ ...workers, headers_timeout_ms: 500, request_timeout_ms: 1500 })),
    );
    const port = portOf(server.url);
    const headers = "POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    const body =
      "POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    const tricklers = [...(await holdMany(port, 3, headers)), ...(await holdMany(port, 3, body))];
    const trickle = setInterval(() => {
      for (const each of tricklers) if (!each.isClosed()) each.socket.write("a");
    }, 100);
    await Promise.all(tricklers.map((each) => each.closed));
    clearInterval(trickle);
    for (const each of tricklers) expect(each.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await ping(server.url)).toBe(200);
  }, 60_000);

  it("closes a kept-alive connection that sends no next request within the headers time-out", async () => {
    const server = await spawnServe(createTempDir(pingProject({ ...workers, headers_timeout_ms: 500 })));
    const kept = await hold(
      portOf(server.url),
      "POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    await kept.closed;
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Keep-Alive: timeout=0\b/i);
  }, 60_000);

  it("never closes a connection that is answering a request to make room: the newcomer gets 503", async () => {
    const server = await spawnServe(
      createTempDir(pingProject({ ...workers, max_connections: 5, headers_timeout_ms: 60_000 })),
    );
    const port = portOf(server.url);
    const stream = "GET /_bass/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
    const streams = await holdMany(port, 4, stream);
    await expect.poll(() => streams.every((each) => each.received().startsWith("HTTP/1.1 200"))).toBe(true);
    const idle = await hold(port);
    // The idle one makes room; the streams keep theirs.
    expect(await ping(server.url)).toBe(200);
    await idle.closed;
    const fifth = await hold(port, stream);
    await expect.poll(() => fifth.received()).toMatch(/^HTTP\/1\.1 200/);
    const refused = await hold(
      port,
      "POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    await refused.closed;
    expect(refused.received()).toMatch(
      /^HTTP\/1\.1 503 [\s\S]*retry-after: 1\r\n[\s\S]*application\/problem\+json/,
    );
    expect([...streams, fifth].filter((each) => each.isClosed())).toHaveLength(0);
    await expect.poll(() => server.output()).toContain("- - 503 0 ms");
    for (const each of [...streams, fifth]) each.socket.destroy();
  }, 60_000);
});

/** A copy of the samples, served with `serve` over their own serve settings. */
function samplesWith(serve: Record<string, unknown>): string {
  const dir = copySamples();
  const file = join(dir, "bass.config.yaml");
  const config = parse(readFileSync(file, "utf8"));
  writeFileSync(file, stringify({ ...config, serve: { ...config.serve, ...serve } }));
  return dir;
}

const transferPath = "/api/v1/core-processor/monetary-internal-transfers";

interface TransferAnswer {
  status: number;
  body: { transfer_id?: string; amount?: string; error?: { code: string } } & Record<string, unknown>;
}

/** POSTs a transfer of `amount` from 1000000001 to 1000000002 with `key`, from `localAddress`. */
function postTransfer(
  url: string,
  key: string,
  amount: string,
  { localAddress = "127.0.0.1", authorization }: { localAddress?: string; authorization?: string } = {},
): Promise<TransferAnswer> {
  const body = JSON.stringify({
    from_account_number: "1000000001",
    to_account_number: "1000000002",
    amount,
    currency: "USD",
  });
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}${transferPath}`,
      {
        method: "POST",
        localAddress,
        headers: {
          "content-type": "application/json",
          "idempotency-key": key,
          ...(authorization && { authorization }),
        },
        timeout: 30_000,
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

/** The mock core's balance of an account, in cents, as its data file has it. */
function coreCents(dir: string, account: string): number {
  const data = JSON.parse(readFileSync(join(dir, ".bass/mockcore.json"), "utf8")) as {
    accounts: { accountNumber: string; balances: { ledger: string } }[];
  };
  return Math.round(
    Number(data.accounts.find((each) => each.accountNumber === account)?.balances.ledger) * 100,
  );
}

describe.each([
  ["default workers", {}],
  ["serve.workers 0", { workers: 0 }],
])("an Idempotency-Key is its caller's, %s", (_, workers) => {
  it("posts two bearer tokens' transfers with one key as two transfers, each its own amount", async () => {
    const dir = samplesWith({
      ...workers,
      auth: { type: "bearer", tokens: ["${env:TOKEN_A}", "${env:TOKEN_B}"] },
    });
    const server = await spawnServe(dir, { TOKEN_A: "token-a", TOKEN_B: "token-b" });
    const start = coreCents(dir, "1000000002");
    const a = await postTransfer(server.url, "shared-key", "10.00", { authorization: "Bearer token-a" });
    const b = await postTransfer(server.url, "shared-key", "20.00", { authorization: "Bearer token-b" });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toMatchObject({ amount: "20.00" });
    expect(b.body.transfer_id).not.toBe(a.body.transfer_id);
    // The same transfer under the same key from another caller is another transfer too.
    const c = await postTransfer(server.url, "same-transfer", "10.00", { authorization: "Bearer token-a" });
    const d = await postTransfer(server.url, "same-transfer", "10.00", { authorization: "Bearer token-b" });
    expect([c.status, d.status]).toEqual([201, 201]);
    expect(d.body.transfer_id).not.toBe(c.body.transfer_id);
    expect(coreCents(dir, "1000000002")).toBe(start + 5000);
    // Each caller's repeat is its first answer again, and another transfer under its key is refused.
    expect(
      await postTransfer(server.url, "shared-key", "20.00", { authorization: "Bearer token-b" }),
    ).toEqual(b);
    const reused = await postTransfer(server.url, "shared-key", "30.00", { authorization: "Bearer token-b" });
    expect(reused.status).toBe(422);
    expect(coreCents(dir, "1000000002")).toBe(start + 5000);
  }, 60_000);

  it("tells two clients apart by their address under auth none", async () => {
    const dir = samplesWith({ ...workers });
    const server = await spawnServe(dir);
    const start = coreCents(dir, "1000000002");
    const a = await postTransfer(server.url, "shared-key", "10.00", { localAddress: "127.0.0.1" });
    const b = await postTransfer(server.url, "shared-key", "10.00", { localAddress: "127.0.0.2" });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.transfer_id).not.toBe(a.body.transfer_id);
    expect(coreCents(dir, "1000000002")).toBe(start + 2000);
    expect(await postTransfer(server.url, "shared-key", "10.00", { localAddress: "127.0.0.2" })).toEqual(b);
    const reused = await postTransfer(server.url, "shared-key", "99.00", { localAddress: "127.0.0.1" });
    expect(reused.status).toBe(422);
    expect(coreCents(dir, "1000000002")).toBe(start + 2000);
  }, 60_000);

  it.each([
    ["not JSON", "{"],
    ["of the wrong shape", '{"key":"x"}\n'],
    ["sealed under another state key", undefined],
  ])(
    "answers 503 for a key whose file is %s, names it in a warning, and runs nothing",
    async (_, text) => {
      const dir = samplesWith({ ...workers });
      const first = await spawnServe(dir);
      expect((await postTransfer(first.url, "kept-key", "10.00")).status).toBe(201);
      first.child.kill("SIGTERM");
      await first.exited;
      const folder = join(dir, ".bass/idempotency");
      const [name] = readdirSync(folder).filter((each) => each.endsWith(".json"));
      const file = join(folder, name as string);
      const env = text === undefined ? { BASS_STATE_KEY: "ab".repeat(32) } : {};
      if (text !== undefined) writeFileSync(file, text);
      const second = await spawnServe(dir, env);
      const moved = coreCents(dir, "1000000002");
      const answer = await postTransfer(second.url, "kept-key", "10.00");
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toContain("cannot be read");
      await expect.poll(() => second.output()).toContain(file);
      expect(coreCents(dir, "1000000002")).toBe(moved);
      expect((await postTransfer(second.url, "kept-key", "10.00")).status).toBe(503);
    },
    60_000,
  );
});

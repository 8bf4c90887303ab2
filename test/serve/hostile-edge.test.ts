import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createTempDir } from "../_helpers.js";
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
    for (let round = 0; round < 10; round++) expect(await ping(server.url)).toBe(200);
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

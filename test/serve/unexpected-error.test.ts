import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { createHistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { createTaskPlace } from "../../src/runner/run-task.js";
import { createThreadRunner } from "../../src/runner/thread-runner.js";
import { createAuthenticator } from "../../src/serve/auth.js";
import { createHandler } from "../../src/serve/handler.js";
import { createIdempotencyStore } from "../../src/serve/idempotency.js";
import { createLimiter } from "../../src/serve/limiter.js";
import { createRunEvents } from "../../src/serve/run-events.js";
import { idempotencyDir, loadServedSet } from "../../src/serve/served-set.js";
import { createSealer } from "../../src/state/seal.js";
import { createFakeCore, createServeProject } from "./_project.js";
import { startServeInProcess } from "./_serve-in-process.js";

// A bearer token from the environment: one of the served set's secrets.
const bearer = 'serve:\n  auth: { type: bearer, tokens: ["${env:TOKEN}"] }\n';

/** Checks that `body` is serve's 500 problem and tells nothing of the error behind it. */
function expectBare500(status: number, type: string | null, body: string, secret: string) {
  expect({ status, type }).toEqual({ status: 500, type: "application/problem+json" });
  expect(JSON.parse(body)).toMatchObject({
    type: "about:blank",
    status: 500,
    title: "Internal Server Error",
  });
  expect(body).not.toContain(secret);
  expect(body).not.toMatch(/\bat .*\.(ts|js):\d+/);
}

describe("an error serve did not expect", () => {
  /** A handler on a bearer project whose idempotency store throws an error quoting the token. */
  async function createThrowingHandler(token: string, logError?: (error: unknown) => void) {
    const dir = createServeProject(createFakeCore(), { config: bearer });
    const loaded = await loadServedSet({ cwd: dir, env: { TOKEN: token } });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const { set } = loaded;
    const place = createTaskPlace(set.project, {
      resolverFor: () => () => createFakeCore(),
      vaults: undefined,
    });
    const runner = createThreadRunner(place);
    const idempotency = createIdempotencyStore({
      dir: idempotencyDir(set),
      ttlSeconds: 60,
      sealer: createSealer(Buffer.alloc(32)),
    });
    const handle = createHandler({
      boundHost: "127.0.0.1",
      current: () => ({ set, runs: { runner, version: 1, mockcoreUrl: () => undefined } }),
      history: createHistoryStore(resolveHistoryOptions(set.project.dir, set.project.config.history)),
      idempotency: {
        ...idempotency,
        begin: () => Promise.reject(new Error(`the store refused the key of ${token}`)),
      },
      limiter: createLimiter(2),
      authenticate: createAuthenticator(set.settings.auth),
      events: createRunEvents(),
      sealer: createSealer(Buffer.alloc(32)),
      ...(logError ? { logError } : {}),
    });
    return () =>
      handle({
        method: "PUT",
        url: "/items/1",
        headers: { host: "127.0.0.1:3000", authorization: `Bearer ${token}`, "idempotency-key": "k-1" },
        body: new Uint8Array(),
      });
  }

  it("goes to stderr with its stack, the set's secrets masked, before an in-process 500", async () => {
    const token = "t0ken-quoted-by-the-store";
    const send = await createThrowingHandler(token);
    const printed: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((text) => {
      printed.push(String(text));
      return true;
    });
    onTestFinished(() => write.mockRestore());

    const response = await send();

    expectBare500(response.status, response.headers["content-type"] ?? null, String(response.body), token);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(
      /^bass serve: unexpected error: Error: the store refused the key of XXXXXXXXXXXX\n\s+at /,
    );
    expect(printed[0]).not.toContain(token);
  });

  it("goes to the handler's logError as thrown, and nowhere else", async () => {
    const token = "t0ken-quoted-by-the-store";
    const logged: unknown[] = [];
    const write = vi.spyOn(process.stderr, "write");
    onTestFinished(() => write.mockRestore());

    const response = await (await createThrowingHandler(token, (error) => logged.push(error)))();

    expectBare500(response.status, response.headers["content-type"] ?? null, String(response.body), token);
    expect(logged.map((error) => (error as Error).message)).toEqual([
      `the store refused the key of ${token}`,
    ]);
    expect(write).not.toHaveBeenCalled();
  });

  it("writes its masked stack to serve's stderr before a 500 over a real socket", async () => {
    const core = createFakeCore();
    const dir = createServeProject(core, { config: bearer });
    // The idempotency folder is a file, and the error saying so quotes the project's path: the token.
    mkdirSync(join(dir, ".bass"), { recursive: true });
    writeFileSync(join(dir, ".bass", "idempotency"), "not a folder");
    const token = basename(dir);
    const server = await startServeInProcess(dir, { TOKEN: token });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/items/1`, {
        method: "PUT",
        headers: {
          authorization: `Bearer ${token}`,
          "idempotency-key": "k-1",
          "content-type": "application/json",
        },
        body: "{}",
      });
      expectBare500(response.status, response.headers.get("content-type"), await response.text(), token);
    } finally {
      await server.stop();
    }
    const printed = server.lines.join("");
    expect(printed).toMatch(/bass serve: unexpected error: Error: E\w+: .*\.bass\/idempotency/);
    expect(printed).toMatch(/\n\s+at /);
    expect(printed).toContain("XXXXXXXXXXXX");
    expect(printed).not.toContain(token);
  });
});

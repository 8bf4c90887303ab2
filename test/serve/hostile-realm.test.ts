import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createTempDir } from "../_helpers.js";
import { integration } from "./_hostile.js";
import { spawnServe } from "./_serve-process.js";

const stuck = "RegExp.prototype.test.bind(/^(?=a)(a+)+$/, 'a'.repeat(36) + 'b')";

/** What bass reads after a cell returned, through a built-in nothing but a worker's end stops. */
const unstoppableInThread: [string, string][] = [
  integration("to-json", { on_success_hook: `output.payload = { toJSON: ${stuck} }` }),
  integration("then-getter", { on_success_hook: `Object.defineProperty({}, "then", { get: ${stuck} })` }),
  integration("proxy-headers", { on_success_hook: `output.headers = new Proxy({}, { ownKeys: ${stuck} })` }),
];

const everywhere: [string, string][] = [
  integration("ping", { on_success_hook: "output.payload = { pong: true }" }),
  integration("arguments", { before_hook: "arguments[1].countdown = Infinity; for (;;) {}" }),
  integration("loops-in-trap", {
    on_success_hook: "output.payload = new Proxy({}, { ownKeys() { for (;;) {} } })",
  }),
  integration("status-twice", {
    on_success_hook:
      "let n = 0; output = { get status() { return n++ ? 700 : 200 }, headers: {}, payload: 1 }",
  }),
  integration("framing", {
    on_success_hook:
      "output.headers = { 'Transfer-Encoding': 'chunked', 'X-Kept': 'yes', Connection: 'close' }",
  }),
  integration("big-header", { on_success_hook: "output.headers = { 'X-Big': 'x'.repeat(5 * 1024 * 1024) }" }),
  integration("no-content", { on_success_hook: "output.status = 204; output.payload = { a: 1 }" }),
  integration("interim", { on_success_hook: "output.status = 101" }),
];

async function post(url: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(30_000) });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe.each([3, 0])("bass serve with cells that hand bass hostile values, serve.workers %i", (workers) => {
  it("reads what a cell made within its limit, and sends only what HTTP allows", async () => {
    const dir = createTempDir({
      "bass.config.yaml": stringify({ systems: {}, serve: { workers }, limits: { cell_timeout_ms: 1000 } }),
      ...Object.fromEntries([...everywhere, ...(workers > 0 ? unstoppableInThread : [])]),
    });
    const server = await spawnServe(dir);
    const at = (name: string) => `${server.url}/${name}`;
    expect((await post(at("ping"))).status).toBe(200);

    const lifted = await post(at("arguments"));
    expect(lifted.status).toBe(500);
    expect(lifted.text).toContain("Cannot set properties of undefined");
    const trap = await post(at("loops-in-trap"));
    expect(trap.status).toBe(504);
    expect(trap.text).toContain("reading the output ran past the cell time limit");
    expect(await post(at("status-twice"))).toMatchObject({ status: 200, text: "1" });
    const framing = await post(at("framing"));
    expect(framing.status).toBe(200);
    expect(framing.headers.get("x-kept")).toBe("yes");
    expect(framing.headers.get("transfer-encoding")).toBeNull();
    const big = await post(at("big-header"));
    expect(big.status).toBe(500);
    expect(big.text).toContain("output.headers take more than 16384 bytes");
    expect(await post(at("no-content"))).toMatchObject({ status: 204, text: "" });
    const interim = await post(at("interim"));
    expect(interim.status).toBe(500);
    expect(interim.text).toContain("interim status");

    if (workers > 0) {
      const answers = await Promise.all(unstoppableInThread.map(([file]) => post(at(file.slice(13, -5)))));
      for (const answer of answers) {
        expect(answer.status).toBe(504);
        expect(answer.text).toContain("inside a call nothing could interrupt");
      }
    }
    expect((await post(at("ping"))).status).toBe(200);
  }, 120_000);
});

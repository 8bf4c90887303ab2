import { describe, expect, it } from "vitest";
import { createTempDir } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

const cellTimeoutMs = 200;

/** Integrations whose cells never end, each in another place of the run, and one that answers at once. */
const loopingProject: Record<string, string> = {
  "bass.config.yaml": `systems:\n  transform:\n    adapter: echo\nlimits:\n  cell_timeout_ms: ${cellTimeoutMs}\n`,
  "integrations/ping.yaml": `name: ping
endpoints:
  - { method: GET, path: /ping }
on_success_hook: "output.payload = { pong: true }"
`,
  "integrations/loop.yaml": `name: loop
endpoints:
  - { method: POST, path: /loop }
before_hook: "while (true) {}"
`,
  "integrations/loop-catching.yaml": `name: loop-catching
endpoints:
  - { method: POST, path: /loop/catching }
before_hook: "while (true) { try { while (true) {} } catch {} }"
`,
  "integrations/loop-rule.yaml": `name: loop-rule
endpoints:
  - { method: POST, path: /loop/rule }
validation_rules:
  - type: INPUT
    field: input.payload
    rule: "(() => { for (;;) {} })()"
`,
  "integrations/loop-mapping.yaml": `name: loop-mapping
endpoints:
  - { method: POST, path: /loop/mapping }
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - field: x
        value: "(() => { do {} while (true) })()"
`,
  "integrations/loop-finally.yaml": `name: loop-finally
endpoints:
  - { method: POST, path: /loop/finally }
finally_hook: "for (;;) {}"
`,
};

interface Timed {
  status: number;
  body: { error?: { code: string; run_id: string; details: string[] }; pong?: boolean };
  /** When the answer came, in ms since the test's clock started. */
  at: number;
}

async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: (await response.json()) as Timed["body"], at: performance.now() };
}

const post = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" };

describe("bass serve with an integration that loops forever (SPEC §4.1, §12)", () => {
  it("answers another endpoint while a hook loops, the looping request with 504, and keeps serving", async () => {
    const server = await spawnServe(createTempDir(loopingProject));
    const started = performance.now();
    const looping = timed(`${server.url}/loop`, post);
    // The server is inside the loop by now; these wait in its socket queue, not in a failure.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pings = await Promise.all(Array.from({ length: 5 }, () => timed(`${server.url}/ping`)));
    const loop = await looping;

    expect(loop.status).toBe(504);
    expect(loop.body.error).toMatchObject({
      code: "timeout",
      details: [expect.stringContaining("before_hook")],
    });
    expect(loop.at - started).toBeGreaterThanOrEqual(cellTimeoutMs);
    for (const ping of pings) {
      expect(ping).toMatchObject({ status: 200, body: { pong: true } });
      // They waited for the cell limit at most, and a few turns of the event loop.
      expect(ping.at - started).toBeLessThan(cellTimeoutMs + 5_000);
    }

    const record = await fetch(`${server.url}/_bass/runs/${loop.body.error?.run_id}`).then(
      (response) => response.json() as Promise<{ items: { kind: string }[] }>,
    );
    expect(record.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { status: 504 } });
    expect(record.items).toContainEqual(
      expect.objectContaining({ kind: "FAILURE", error: expect.objectContaining({ code: "cell_timeout" }) }),
    );
    expect((await timed(`${server.url}/loop`, post)).status).toBe(504);
    expect(await timed(`${server.url}/ping`)).toMatchObject({ status: 200, body: { pong: true } });
    expect((await fetch(`${server.url}/_bass/health`)).status).toBe(200);
  }, 60_000);

  it("answers several looping requests at once with 504 each, and the others with 200", async () => {
    const server = await spawnServe(createTempDir(loopingProject));
    const paths = ["/loop", "/loop/catching", "/loop/rule", "/loop/mapping", "/loop/finally"];
    const loops = Promise.all(paths.map((path) => timed(`${server.url}${path}`, post)));
    const pings = Promise.all(Array.from({ length: 10 }, () => timed(`${server.url}/ping`)));
    const answers = await loops;
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, paths[index]).toBe(504);
      expect(answer.body.error?.details.join("\n")).toContain("the cell ran past its time limit");
    }
    for (const ping of await pings) expect(ping).toMatchObject({ status: 200, body: { pong: true } });
    expect((await fetch(`${server.url}/_bass/health`)).status).toBe(200);
  }, 60_000);
});

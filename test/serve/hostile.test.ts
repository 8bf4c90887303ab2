import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createTempDir } from "../_helpers.js";
import { integration, residentMb } from "./_hostile.js";
import { spawnServe } from "./_serve-process.js";

const cellTimeoutMs = 1000;

const javascript: [string, string][] = [
  integration("ping", { on_success_hook: "output.payload = { pong: true }" }),
  integration("atomics", { before_hook: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)" }),
  integration("atomics-timeout", {
    before_hook: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000)",
  }),
  integration("backtracks", {
    on_success_hook: "output.payload = { matched: /^(a+)+$/.test('a'.repeat(40) + 'b') }",
  }),
  integration("big-output", { on_success_hook: "output.payload = { s: 'x'.repeat(2 * 1024 * 1024) }" }),
  integration("leaves-work", {
    before_hook: "void (async () => { for (;;) await null })()",
    on_success_hook: "output.payload = { answered: true }",
  }),
  integration("reads-stack", {
    on_success_hook: "output.payload = { get stack() { return new Error().stack } }",
  }),
];

/** Patterns V8's linear-time engine does not take: only a worker's end stops them. */
const unstoppableInThread: [string, string][] = [
  integration("lookaround", {
    on_success_hook: "output.payload = /^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')",
  }),
  integration("backreference", {
    on_success_hook: "output.payload = /^(a+)+\\1$/.test('a'.repeat(40) + 'b')",
  }),
];

const python: [string, string][] = [
  integration("py-js", { before_hook: 'exec("import js")' }, "python"),
  integration("py-hack", { before_hook: 'import json\njson.dumps = lambda *a, **k: "hacked"' }, "python"),
  integration("py-json", { on_success_hook: 'import json\noutput.payload = json.dumps({"a": 1})' }, "python"),
  integration("py-native", { before_hook: "sum(range(10**10))" }, "python"),
  // CPython's WebAssembly memory grows for it, and is never given back but with its worker.
  integration(
    "py-hoards",
    { on_success_hook: "output.payload = len(bytearray(96 * 1024 * 1024))" },
    "python",
  ),
];

function project(workers: number): Record<string, string> {
  return {
    "bass.config.yaml": stringify({
      systems: {},
      serve: { workers },
      limits: { cell_timeout_ms: cellTimeoutMs, cell_memory_mb: 64, output_bytes: 1024 * 1024 },
      history: { max_item_bytes: 4096 },
    }),
    ...Object.fromEntries([...javascript, ...python, ...(workers > 0 ? unstoppableInThread : [])]),
  };
}

interface Answer {
  status: number;
  text: string;
  at: number;
}

async function post(url: string): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, text: await response.text(), at: performance.now() };
}

/** The hostile cells that end at once, each at its own limit, with the answer that says which. */
async function expectEachEndsAtItsLimit(at: (name: string) => string, dir: string, workers: number) {
  const atomics = await post(at("atomics"));
  expect(atomics.status).toBe(500);
  expect(atomics.text).toContain("Atomics.wait is not available to cells");
  expect((await post(at("atomics-timeout"))).text).toContain("Atomics.wait is not available to cells");
  expect(await post(at("backtracks"))).toMatchObject({ status: 200, text: '{"matched":false}' });
  const big = await post(at("big-output"));
  expect(big.status).toBe(500);
  expect(big.text).toContain("over limits.output_bytes (1048576)");
  expect(await post(at("leaves-work"))).toMatchObject({ status: 200, text: '{"answered":true}' });
  expect((await post(at("ping"))).status).toBe(200);
  const stack = await post(at("reads-stack"));
  expect(stack.status).toBe(200);
  expect(stack.text).toMatch(/bass-cell-\d+/);
  expect(stack.text).not.toContain(dir);
  expect(stack.text).not.toMatch(/file:|dist\/|node:/);

  const pyJs = await post(at("py-js"));
  expect(pyJs.status).toBe(500);
  expect(pyJs.text).toContain("a cell cannot import js");
  for (let round = 0; round < 2 * Math.max(workers, 1); round++) await post(at("py-hack"));
  expect(await post(at("py-json"))).toMatchObject({ status: 200, text: JSON.stringify('{"a": 1}') });
}

describe.each([3, 0])("bass serve with hostile cells among others, serve.workers %i", (workers) => {
  it("ends each at its limit with a record saying why, and answers the others throughout", async () => {
    const dir = createTempDir(project(workers));
    const server = await spawnServe(dir);
    const at = (name: string) => `${server.url}/${name}`;
    // Warm: each worker has loaded its project and Python.
    for (const name of ["ping", "py-json", "ping", "py-json"])
      expect((await post(at(name))).status).toBe(200);
    const pid = server.child.pid as number;
    const startMb = residentMb(pid);

    // Two stuck cells hold two of the three workers; what comes after they began goes to the third. With
    // no workers, Python runs still go to one of their own, and JavaScript ones stay on serve's thread.
    const stuck = workers > 0 ? ["lookaround", "py-native"] : ["py-native"];
    const stuckAnswers = Promise.all(stuck.map((name) => post(at(name))));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pings = await Promise.all(Array.from({ length: 5 }, () => post(at("ping"))));
    for (const ping of pings) expect(ping).toMatchObject({ status: 200, text: '{"pong":true}' });

    await expectEachEndsAtItsLimit(at, dir, workers);

    for (const answer of await stuckAnswers) {
      expect(answer.status).toBe(504);
      expect(answer.text).toContain("a cell ran past its time limit inside a call nothing could interrupt");
      // Every ping was answered while these were stuck.
      expect(Math.max(...pings.map((ping) => ping.at))).toBeLessThan(answer.at);
    }

    // Sent together, stuck and normal runs share workers: what had not acted outside a worker ended for
    // another run's cell runs again on another.
    if (workers > 0) {
      const together = await Promise.all(
        ["backreference", "lookaround", "ping", "py-native", "ping"].map((name) => post(at(name))),
      );
      expect(together.map((answer) => answer.status)).toEqual([504, 504, 200, 504, 200]);
    }
    for (let round = 0; round < 3; round++) expect((await post(at("py-hoards"))).status).toBe(200);
    const hoardedMb = residentMb(pid);
    await expect.poll(() => server.output()).toContain("a worker thread was replaced: it held");
    // The workers that hoarded were replaced, and serve comes back near where it started: the workers
    // replaced for stuck cells above load CPython again, and the allocator keeps some of what ends.
    await expect.poll(() => residentMb(pid), { timeout: 30_000, interval: 500 }).toBeLessThan(startMb + 200);
    // The figures docs/architecture.md gives: BASS_FIGURES=1 npx vitest run test/serve/hostile.test.ts
    if (process.env.BASS_FIGURES)
      console.log(
        `workers ${workers}: resident ${startMb.toFixed(0)} MB at the start, ${hoardedMb.toFixed(0)} MB after the hoards, ${residentMb(pid).toFixed(0)} MB at the end`,
      );
    expect((await post(at("ping"))).status).toBe(200);
  }, 120_000);
});

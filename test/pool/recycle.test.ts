import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createRunPool, type RunPool } from "../../src/pool/run-pool.js";
import { openProject } from "../../src/project/open.js";
import type { RunRequest } from "../../src/runner/runner.js";

const files = {
  "bass.config.yaml": stringify({ systems: {}, limits: { cell_memory_mb: 32 } }),
  // Past the thread's heap: bytes, which V8's heap limit does not count.
  "integrations/hoards.yaml": stringify({
    name: "hoards",
    before_hook: "const bytes = new Uint8Array(96 * 1024 * 1024).fill(1)\noutput.payload = bytes.length",
  }),
  "integrations/small.yaml": stringify({ name: "small", before_hook: "output.payload = 1" }),
  // CPython's WebAssembly memory grows for it and is never given back.
  "integrations/hoards-py.yaml": stringify({
    name: "hoards-py",
    language: "python",
    before_hook: "data = bytearray(96 * 1024 * 1024)\noutput.payload = len(data)",
  }),
};

const task = (integration: string): RunRequest => ({
  version: 1,
  integration,
  input: { payload: {} },
  trigger: "test",
  mockcoreUrl: undefined,
});

describe("a worker that holds more than limits.cell_memory_mb after a run", () => {
  let pool: RunPool;
  const replaced: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "bass-recycle-"));
  beforeAll(async () => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const project = await openProject({ cwd: dir, env: {}, projectDir: dir });
    pool = createRunPool({
      project,
      cwd: dir,
      env: {},
      workers: 1,
      onWorkerReplaced: (reason) => replaced.push(reason),
    });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("collects what a JavaScript run left past the limit, and keeps the worker", async () => {
    replaced.length = 0;
    for (let round = 0; round < 3; round++) {
      const hoarded = await pool.run(task("hoards"));
      expect(hoarded.outputJson).toBe(String(96 * 1024 * 1024));
    }
    expect((await pool.run(task("small"))).outputJson).toBe("1");
    // Its bytes were garbage once the run ended: nothing the worker holds is past the limit.
    expect(replaced).toEqual([]);
  });

  it.each(["hoards-py"])(
    "answers %s's run, then is replaced, and the next run goes on in a new one",
    async (hoards) => {
      replaced.length = 0;
      expect((await pool.run(task("small"))).outputJson).toBe("1");
      expect(replaced).toEqual([]);
      const hoarded = await pool.run(task(hoards));
      expect(hoarded.status).toBe("success");
      expect(hoarded.outputJson).toBe(String(96 * 1024 * 1024));
      const next = await pool.run(task("small"));
      expect(next.outputJson).toBe("1");
      expect(replaced).toEqual([
        expect.stringMatching(
          /^it held \d+ MB more after a run than when it started, over limits.cell_memory_mb \(32\)$/,
        ),
      ]);
    },
  );
});

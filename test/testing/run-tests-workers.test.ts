import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openProjectFiles } from "../../src/project/open-files.js";
import { runTests } from "../../src/testing/run-tests.js";
import { createTempDir } from "../_helpers.js";

describe("runTests in worker threads (SPEC §13.1)", () => {
  it("fails a case that kills its worker, and the suite goes on in a new one", async () => {
    const calm = (name: string) => `  - name: ${name}\n    expect: { output: { payload: { calm: true } } }\n`;
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nlimits:\n  cell_timeout_ms: 1000\n  cell_memory_mb: 64\n",
      "integrations/grow.yaml":
        'name: grow\nbefore_hook: "const keep = []; while (true) keep.push(new Array(1e5).fill({ x: 1 }))"\n',
      "integrations/calm.yaml": 'name: calm\non_success_hook: "output.payload = { calm: true }"\n',
      "tests/a.test.yaml": `integration: calm\ncases:\n${calm("before")}`,
      "tests/b.test.yaml": "integration: grow\ncases:\n  - name: grows\n    expect: { state: failure }\n",
      "tests/c.test.yaml": `integration: calm\ncases:\n${calm("after")}`,
    });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const { results } = await runTests({
      project,
      cwd: dir,
      env: {},
      files: ["a", "b", "c"].map((name) => join(dir, "tests", `${name}.test.yaml`)),
      // One case at a time in one worker: the case after the one that kills it runs in its replacement.
      concurrency: 1,
      workers: 1,
    });
    expect(results.map((result) => [result.name, result.status])).toEqual([
      ["before", "passed"],
      ["grows", "failed"],
      ["after", "passed"],
    ]);
    expect(results[1]?.differences[0]?.message).toMatch(/^the worker thread running it ended: /);
    expect(results[1]?.record?.items).toEqual([
      expect.objectContaining({ kind: "FAILURE", error: expect.objectContaining({ code: "worker_died" }) }),
      expect.objectContaining({ kind: "OUTPUT", data: expect.objectContaining({ status: 500 }) }),
    ]);
  });
});

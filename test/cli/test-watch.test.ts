import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { watchTests } from "../../src/cli/test-watch.js";
import { captureOutput, createTempDir, stopSignal } from "../_helpers.js";

describe("bass test --watch", () => {
  it("runs the suite, then again after a change, until stopped, and returns the last run's code", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
      "integrations/a.yaml": 'name: a\non_success_hook: "output.payload = 1"\n',
      "a.test.yaml": "integration: a\ncases:\n  - name: one\n    expect: { output: { payload: 1 } }\n",
    });
    const { output, stdout, stderr } = captureOutput();
    const { stopped, stop } = stopSignal();
    const watching = watchTests([], { reporter: "text", update: false, cwd: dir, env: {}, stopped }, output);
    await expect.poll(stdout, { timeout: 10_000 }).toMatch(/1 passed, 0 failed/);
    await expect.poll(stderr, { timeout: 10_000 }).toContain("watching for changes");
    writeFileSync(join(dir, "integrations/a.yaml"), 'name: a\non_success_hook: "output.payload = 2"\n');
    await expect.poll(stdout, { timeout: 10_000 }).toMatch(/0 passed, 1 failed/);
    stop();
    expect(await watching).toBe(1);
  }, 30_000);
});

import { describe, expect, it } from "vitest";
import { caseFilter } from "../../src/testing/select-cases.js";
import { copySamples, createTempDir, runCli } from "../_helpers.js";

const ran = (stdout: string) => /(\d+) passed, (\d+) failed/.exec(stdout)?.slice(1).map(Number) ?? [];

describe("choosing the cases of a suite", () => {
  it("splits the samples' suite into shards that run every case once between them", async () => {
    const dir = copySamples();
    const counts = [];
    for (const shard of ["1/3", "2/3", "3/3"]) {
      const result = await runCli(["test", "--shard", shard], { cwd: dir });
      expect(result.code).toBe(0);
      counts.push(ran(result.stdout)[0] ?? 0);
    }
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(59);
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it("runs only the cases --grep matches, by name or file", async () => {
    const dir = copySamples();
    const byName = await runCli(["test", "--grep", "embedded mock core"], { cwd: dir });
    expect(byName.code).toBe(0);
    expect(byName.stdout).not.toContain("turns a core 400 into invalid_request");
    expect(ran(byName.stdout)[0]).toBeGreaterThan(0);
    const byFile = await runCli(["test", "--grep", "customers\\.create\\.test"], { cwd: dir });
    expect(ran(byFile.stdout)).toEqual([8, 0]);
  });

  it("stops starting cases after the first failure with --bail", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/a.yaml": 'name: a\non_success_hook: "output.payload = 1"\n',
      "a.test.yaml": `integration: a\ncases:\n${Array.from({ length: 12 }, (_, n) => `  - name: c${n}\n    expect: { output: { payload: 2 } }\n`).join("")}`,
    });
    const all = await runCli(["test"], { cwd: dir });
    expect(ran(all.stdout)).toEqual([0, 12]);
    const bailed = await runCli(["test", "--bail"], { cwd: dir });
    expect(bailed.code).toBe(1);
    expect(ran(bailed.stdout)[1]).toBeLessThan(12);
  });

  it("refuses a shard or a pattern it cannot read", async () => {
    expect(() => caseFilter({ shard: "4/3" })).toThrow("--shard takes i/n");
    expect(() => caseFilter({ shard: "0/3" })).toThrow("--shard takes i/n");
    expect(() => caseFilter({ grep: "(" })).toThrow("--grep takes a regular expression");
    expect(caseFilter({})).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

const boom = `name: boom
on_success_hook: |
  throw new Error('no customer id')
`;

function createProject(files: Record<string, string> = {}): string {
  return createTempDir({
    "bass.config.yaml": defaultProjectFile,
    "integrations/boom.yaml": boom,
    "input.json": "{}",
    ...files,
  });
}

describe("expected outputs that hold a run id", () => {
  it("passes a promoted run that ended in the default failure output", async () => {
    const dir = createProject();
    const run = await runCli(["run", "boom", "--input", "input.json", "--json"], { cwd: dir });
    expect(run.code).toBe(1);
    const runId = (JSON.parse(run.stdout) as { run_id: string }).run_id;
    expect((await runCli(["history", "promote", runId, "--out", "t.test.yaml"], { cwd: dir })).code).toBe(0);
    const tested = await runCli(["test", "t.test.yaml"], { cwd: dir });
    expect(tested.stdout).toMatch(/\n1 passed, 0 failed /);
    expect(tested.code).toBe(0);
  });

  it("passes a failing case after --update wrote its output", async () => {
    const dir = createProject({
      "t.test.yaml":
        "integration: boom\ncases:\n  - name: fails\n    expect: { state: failure, output: { status: 200 } }\n",
    });
    expect((await runCli(["test", "--update"], { cwd: dir })).code).toBe(0);
    const tested = await runCli(["test"], { cwd: dir });
    expect(tested.stdout).toMatch(/\n1 passed, 0 failed /);
    expect(tested.code).toBe(0);
  });
});

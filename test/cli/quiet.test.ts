import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copySamples, runCli } from "../_helpers.js";

describe("--quiet", () => {
  it("keeps a command's results and errors, and drops its warnings and notes", async () => {
    const dir = copySamples();
    writeFileSync(
      join(dir, "integrations", "warned.yaml"),
      "name: warned\nbefore_hook: |\n  setTimeout(() => {}, 1)\n",
    );
    const loud = await runCli(["openapi", "--out", "openapi.json"], { cwd: dir });
    expect(loud.stderr).toContain("wrote openapi.json");
    const quiet = await runCli(["openapi", "--out", "openapi.json", "--quiet"], { cwd: dir });
    expect([quiet.code, quiet.stderr]).toEqual([0, ""]);
    // validate's findings are its result: they stay.
    const validated = await runCli(["validate", "--quiet"], { cwd: dir });
    expect(validated.stdout).toContain("cells have no setTimeout");
    // A test file that cannot be used is an error: it stays whole, its findings under it.
    writeFileSync(join(dir, "tests", "broken.test.yaml"), "integration: customers.create\ncases: 3\n");
    const tested = await runCli(["test", "tests/broken.test.yaml", "--quiet"], { cwd: dir });
    expect(tested.code).toBe(2);
    expect(tested.stderr).toMatch(
      /^bass: tests\/broken\.test\.yaml: it cannot be used until these are fixed:\n {2}\S/,
    );
    // An error still says what went wrong.
    const failed = await runCli(["run", "nope", "--quiet"], { cwd: dir });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^bass: .*nope/);
  });
});

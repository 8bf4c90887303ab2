import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

describe("bass test --update", () => {
  it("keeps a comment on the line of expect.output", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\non_success_hook: |\n  output.payload = { hello: 'Ada' }\n",
      "t.test.yaml": `integration: hello
cases:
  - name: says hello
    expect:
      output: { status: 201 } # the status the API documents
`,
    });
    expect((await runCli(["test", "--update"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, "t.test.yaml"), "utf8")).toContain("# the status the API documents");
  });
});

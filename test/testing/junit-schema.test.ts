import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

// The Jenkins JUnit XSD (the de facto schema CI tools read; junit-processor ships it), checked with libxml2
// built as wasm (xmllint-wasm): no native parts, no Java.
const tools = createRequire(join(process.cwd(), "package.json"));
const { validateXML } = tools("xmllint-wasm") as {
  validateXML(options: {
    xml: { fileName: string; contents: string };
    schema: { fileName: string; contents: string };
  }): Promise<{ valid: boolean; errors: { rawMessage: string }[] }>;
};
const xsd = readFileSync(tools.resolve("junit-processor/schemas/jenkins-junit.xsd"), "utf8");

describe("bass test --reporter junit", () => {
  it("is valid against the Jenkins JUnit XSD", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\non_success_hook: |\n  output.status = 201\n",
      "tests/hello.test.yaml": `integration: hello
cases:
  - name: passes
    expect: { output: { status: 201 } }
  - name: fails <&>
    expect: { output: { status: 200 } }
`,
    });
    const result = await runCli(["test", "--reporter", "junit"], { cwd: dir });
    expect(result.code).toBe(1);
    const validation = await validateXML({
      xml: { fileName: "report.xml", contents: result.stdout },
      schema: { fileName: "jenkins-junit.xsd", contents: xsd },
    });
    expect(validation.errors.map((error) => error.rawMessage)).toEqual([]);
    expect(validation.valid).toBe(true);
  });
});

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { copySamples, createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

// The Cobertura file is checked as libxml2 parses it (xmllint-wasm: no native parts).
const tools = createRequire(join(process.cwd(), "package.json"));
const { validateXML } = tools("xmllint-wasm") as {
  validateXML(options: {
    xml: { fileName: string; contents: string };
    normalization: "format";
  }): Promise<{ valid: boolean; errors: { rawMessage: string }[] }>;
};

/** What an LCOV file says was reached: `file:line` of every line hit, `file:line:block:way` of every branch taken. */
function reachedOf(lcov: string): { lines: Set<string>; branches: Set<string> } {
  const lines = new Set<string>();
  const branches = new Set<string>();
  let file = "";
  for (const line of lcov.split("\n")) {
    if (line.startsWith("SF:")) file = line.slice(3);
    const hit = /^DA:(\d+),(\d+)$/.exec(line);
    if (hit && Number(hit[2]) > 0) lines.add(`${file}:${hit[1]}`);
    const branch = /^BRDA:(\d+),(\d+),(\d+),(\d+)$/.exec(line);
    if (branch && Number(branch[4]) > 0) branches.add(`${file}:${branch[1]}:${branch[2]}:${branch[3]}`);
  }
  return { lines, branches };
}

async function coverageOf(dir: string, args: string[] = []) {
  const result = await runCli(["test", "--coverage", ...args], { cwd: dir });
  return { result, lcov: readFileSync(join(dir, "coverage", "lcov.info"), "utf8") };
}

const minus = (a: Set<string>, b: Set<string>) => [...a].filter((item) => !b.has(item)).sort();

describe("bass test --coverage", () => {
  it("writes lcov.info and a well-formed cobertura.xml, and prints a table per definition", async () => {
    const dir = copySamples();
    const { result, lcov } = await coverageOf(dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Definition coverage");
    expect(result.stdout).toMatch(/integrations\/customers\.create\.yaml +\d+\.\d +\d+\.\d +\d+\.\d/);
    expect(result.stdout).toContain("wrote coverage/lcov.info and coverage/cobertura.xml");
    // Every definition, its cells as functions, its lines, its branches.
    expect(lcov.match(/^SF:/gm)).toHaveLength(6);
    expect(lcov).toMatch(/^FN:\d+,on_success_hook$/m);
    expect(lcov).toMatch(/^BRDA:\d+,\d+,[01],\d+$/m);
    expect(lcov).toMatch(/^DA:\d+,\d+$/m);
    const cobertura = readFileSync(join(dir, "coverage", "cobertura.xml"), "utf8");
    const parsed = await validateXML({
      xml: { fileName: "cobertura.xml", contents: cobertura },
      normalization: "format",
    });
    expect(parsed.errors.map((error) => error.rawMessage)).toEqual([]);
    expect(cobertura).toMatch(/<coverage line-rate="[01]\.\d{4}" branch-rate="[01]\.\d{4}"/);
    expect(cobertura).toContain('filename="integrations/customers.create.yaml"');
  }, 60_000);

  it("lowers the figures, once a case is deleted, for exactly what only that case reached", async () => {
    const dir = copySamples();
    const full = reachedOf((await coverageOf(dir)).lcov);
    const only = "reports every invalid field at once";
    const alone = reachedOf((await coverageOf(dir, ["--grep", only])).lcov);
    const file = join(dir, "tests", "customers.create.test.yaml");
    const document = parseDocument(readFileSync(file, "utf8"));
    const cases = document.get("cases") as { items: { get(key: string): unknown }[] };
    cases.items = cases.items.filter((item) => item.get("name") !== only);
    writeFileSync(file, document.toString());
    const without = reachedOf((await coverageOf(dir)).lcov);
    // What the deleted case alone reached is what the suite no longer reaches.
    expect(minus(full.lines, without.lines)).toEqual(minus(alone.lines, without.lines));
    expect(minus(full.branches, without.branches)).toEqual(minus(alone.branches, without.branches));
    expect(minus(full.branches, without.branches).length).toBeGreaterThan(0);
    expect([...without.lines].every((line) => full.lines.has(line))).toBe(true);
  }, 90_000);

  it("fails the suite below --coverage-threshold", async () => {
    const dir = copySamples();
    const result = await runCli(["test", "--coverage-threshold", "101"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lines covered 100\.0% is below --coverage-threshold 101%/);
    expect(existsSync(join(dir, "coverage", "lcov.info"))).toBe(true);
  }, 60_000);

  it.skipIf(!existsSync("/usr/bin/genhtml"))(
    "is read by lcov --summary and genhtml",
    async () => {
      const dir = copySamples();
      expect((await coverageOf(dir)).result.code).toBe(0);
      const summary = execFileSync("lcov", ["--summary", "coverage/lcov.info"], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(summary).toMatch(/lines\.+: \d+\.\d% \(\d+ of \d+ lines\)/);
      const html = execFileSync(
        "genhtml",
        ["coverage/lcov.info", "--branch-coverage", "-o", "coverage/html"],
        {
          cwd: dir,
          encoding: "utf8",
        },
      );
      expect(html).toMatch(/branches\.+: \d+\.\d% \(\d+ of \d+ branches\)/);
      // The YAML itself, line by line with its hits, as genhtml shows source files.
      const page = readFileSync(
        join(dir, "coverage", "html", "integrations", "customers.create.yaml.gcov.html"),
        "utf8",
      );
      expect(page).toContain("on_success_hook");
    },
    60_000,
  );

  it("counts Python cells as it counts JavaScript ones, in the suite's workers", async () => {
    const dir = createTempDir({
      "bass.config.yaml": `${defaultProjectFile}serve:\n  workers: 1\n`,
      "integrations/greet.yaml": `name: greet
language: python
service_requests:
  - formula_variable: echo
    system: transform
    field_mappings:
      - field: name
        value: input.payload.name.upper()
      - field: title
        include_if: input.payload.get("title") is not None
        value: input.payload.title
on_success_hook: |
  output.payload = {"hello": echo.response.payload["name"]}
`,
      "tests/greet.test.yaml": `integration: greet
cases:
  - name: greets by name
    input: { payload: { name: ada } }
    expect: { output: { payload: { hello: ADA } } }
`,
    });
    const { result, lcov } = await coverageOf(dir);
    expect(result.code, result.stderr).toBe(0);
    expect(lcov).toContain("FNDA:1,on_success_hook");
    expect(lcov).toContain("FNDA:1,service_requests[0].field_mappings[0].value");
    // The include_if was false, so its mapping's value never ran, and its branch went one way only.
    expect(lcov).toContain("FNDA:0,service_requests[0].field_mappings[1].value");
    expect(lcov).toMatch(/^BRDA:10,\d+,0,0$/m);
    expect(lcov).toMatch(/^BRDA:10,\d+,1,1$/m);
  }, 90_000);
});

import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copySamples, createTempDir, defaultProjectFile, runCli, yamlAliasBomb } from "../_helpers.js";

const broken = `name: customers.create
service_requests:
  - formula_variable: core
    system: core
    field_mappings:
      - { field: service_path, literal: /core/v1/persons }
      - { field: method, literal: POST }
    after_execute_request_success_hook: |
      const id = core.response.payload.personId
      keep({ id: id + })
`;
const warnOnly = "name: notes\ndescription: ${env:BASS_UNSET_NOTE}\n";

function brokenProject(): string {
  return createTempDir({
    "bass.config.yaml": defaultProjectFile,
    "integrations/customers.create.yaml": broken,
  });
}

describe("bass validate", () => {
  it("exits 0 on the samples", async () => {
    const result = await runCli(["validate", "--project", "samples"], { cwd: process.cwd() });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/no problems/);
    expect(result.code).toBe(0);
  });

  it.each([
    [
      "text",
      /integrations\/customers\.create\.yaml\n {2}10:23 +error +service_requests\[0\]\.after_execute_request_success_hook: Unexpected token +cell-syntax/,
    ],
    ["json", /"file": "integrations\/customers\.create\.yaml",\s+"line": 10,\s+"column": 23,/],
    ["sarif", /"startLine": 10,\s+"startColumn": 23/],
    ["junit", /name="cell-syntax at 10:23"/],
    ["github", /^::error file=integrations\/customers\.create\.yaml,line=10,col=23,title=cell-syntax::/m],
  ])("reports a syntax error inside a block cell at its file line in %s format", async (format, expected) => {
    const result = await runCli(["validate", "--format", format], { cwd: brokenProject() });
    expect(result.stdout).toMatch(expected);
    expect(result.code).toBe(1);
  });

  it("validates only the paths given, with the project's systems", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/good.yaml":
        "name: good\nservice_requests:\n  - { formula_variable: t, system: transform }\n",
      "integrations/bad.yaml": "name: bad\nservice_requests:\n  - { formula_variable: t, system: crm }\n",
    });
    expect((await runCli(["validate", "integrations/good.yaml"], { cwd: dir })).code).toBe(0);
    const bad = await runCli(["validate", "--format", "json", "integrations"], { cwd: dir });
    expect(JSON.parse(bad.stdout).findings).toEqual([
      expect.objectContaining({ file: "integrations/bad.yaml", line: 3, column: 28, rule: "unknown-system" }),
    ]);
    expect(bad.code).toBe(1);
  });

  it("counts the project file as checked when it is named alone", async () => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile, "integrations/a.yaml": "name: a\n" });
    const text = await runCli(["validate", "bass.config.yaml"], { cwd: dir });
    expect(text.stdout).toMatch(/✔ 1 file checked, no problems/);
    const junit = await runCli(["validate", "--format", "junit", "bass.config.yaml"], { cwd: dir });
    expect(junit.stdout).toContain('<testcase classname="bass.config.yaml" name="no problems"/>');
  });

  it("exits 2 on a folder that holds no definition file", async () => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile, "docs/notes.md": "" });
    const result = await runCli(["validate", "docs"], { cwd: dir });
    expect(result.stderr).toMatch(/"docs" holds no definition file/);
    expect(result.code).toBe(2);
  });

  it("passes warnings unless --strict", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/notes.yaml": warnOnly,
    });
    const lenient = await runCli(["validate"], { cwd: dir });
    expect(lenient.stdout).toMatch(/BASS_UNSET_NOTE is not set/);
    expect(lenient.code).toBe(0);
    expect((await runCli(["validate", "--strict"], { cwd: dir })).code).toBe(1);
  });

  it.each([
    [["validate", "no/such/file.yaml"], /no such file or folder: no\/such\/file\.yaml/],
    [["validate", "--format", "xml"], /argument 'xml' is invalid/],
    [["validate", "--frobnicate"], /unknown option '--frobnicate'/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("exits 2 on a usage error: %j", async (argv, message) => {
    const result = await runCli(argv, { cwd: brokenProject() });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it("walks past dangling, looping and folder links in the integrations folder", async () => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile, "integrations/a.yaml": "name: a\n" });
    symlinkSync("nowhere.yaml", join(dir, "integrations/x.yaml"));
    symlinkSync("self.yaml", join(dir, "integrations/self.yaml"));
    symlinkSync("../integrations", join(dir, "integrations/sub"));
    for (const argv of [["validate"], ["validate", "integrations"]]) {
      const result = await runCli(argv, { cwd: dir });
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(/checked, no problems/);
    }
  });

  it.each(["text", "json", "sarif", "junit", "github"])(
    "prints no value that came from the environment in %s format",
    async (format) => {
      const dir = createTempDir({
        "bass.config.yaml": `integrations: ["\${env:BASS_DIR}", integrations]\n${defaultProjectFile}`,
        "integrations/a.yaml": `name: a
endpoints: [{ method: GET, path: "/x/\${env:BASS_PATH}" }]
value_mapping_sets: [{ name: s, mappings: [] }]
masks:
  - { type: RESPONSE, service_request: "\${env:BASS_SR}", field: "\${env:BASS_MASK}" }
before_hook: "\${env:BASS_CODE}"
service_requests:
  - formula_variable: core
    system: "\${env:BASS_SYS}"
    field_mappings:
      - { field: "\${env:BASS_FIELD}", value: "1", value_mapping_set: "\${env:BASS_SET}" }
`,
        "integrations/b.yaml": 'name: b\nendpoints: [{ method: GET, path: "/x/${env:BASS_PATH}" }]\n',
      });
      const env = {
        NO_COLOR: "1",
        BASS_DIR: "dir-7f3a1",
        BASS_PATH: "path-7f3a2",
        BASS_SR: "sr-7f3a3",
        BASS_MASK: "mask..7f3a4",
        BASS_CODE: "code +* 7f3a5",
        BASS_SYS: "sys-7f3a6",
        BASS_FIELD: "field..7f3a7",
        BASS_SET: "set-7f3a8",
      };
      const result = await runCli(["validate", "--format", format], { cwd: dir, env });
      for (const rule of [
        "integrations-missing",
        "duplicate-endpoint",
        "unknown-formula-variable",
        "field-path",
        "cell-syntax",
        "unknown-system",
        "unknown-value-mapping-set",
      ])
        expect(result.stdout).toContain(rule);
      // Every value from the environment holds 7f3a and a digit; the names are written in the files.
      expect(result.stdout + result.stderr).not.toMatch(/7f3a\d/);
    },
  );

  it("quotes names from the files, so that no control character reaches the terminal", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/a.yaml":
        'name: a\n"bad\\e[31mkey\\nx": 1\nservice_requests:\n  - { formula_variable: t, system: "crm\\e[0m\\r" }\n',
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.stdout).toContain('unknown key "bad\\u001b[31mkey\\nx"');
    expect(result.stdout).toContain('no system "crm\\u001b[0m\\r"');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the very characters that must not be printed
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it("does not print a secret literal again under its finding", async () => {
    const dir = createTempDir({
      "bass.config.yaml": `${defaultProjectFile}serve:\n  auth: { type: bearer, tokens: [tok-5e9c1] }\n`,
      "integrations/a.yaml": "name: a\n",
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.stdout).toMatch(/a credential is written in serve\.auth\.tokens\[0\]/);
    expect(result.stdout).not.toContain("tok-5e9c1");
  });

  it("exits 2 when there is no project file", async () => {
    const result = await runCli(["validate"], { cwd: createTempDir() });
    expect(result.stderr).toMatch(/no bass\.config\.yaml in .* or above; give --project DIR/);
    expect(result.code).toBe(2);
  });

  it("colours a terminal that shows colour, unless --no-color or NO_COLOR says no", async () => {
    const dir = brokenProject();
    const terminal = { cwd: dir, colorLevel: 1 as const };
    expect((await runCli(["validate"], { ...terminal, env: {} })).stdout).toContain("\u001b[");
    expect((await runCli(["validate", "--no-color"], { ...terminal, env: {} })).stdout).not.toContain(
      "\u001b[",
    );
    expect((await runCli(["validate"], { ...terminal, env: { NO_COLOR: "1" } })).stdout).not.toContain(
      "\u001b[",
    );
  });
});

describe("a definition whose YAML aliases expand without bound", () => {
  it("is a finding of its file, and validate and list go on with the others", async () => {
    const dir = copySamples();
    writeFileSync(join(dir, "integrations", "bomb.yaml"), yamlAliasBomb());
    const validated = await runCli(["validate", "--project", dir], { cwd: dir });
    expect(validated.code).toBe(1);
    expect(validated.stdout).toMatch(/bomb\.yaml[\s\S]*3:10 +error +its aliases expand past 100 copies/);
    expect(validated.stdout + validated.stderr).not.toMatch(/ReferenceError|unexpected error|\n\s+at /);
    const listed = await runCli(["list", "--project", dir], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("customers.create");
    expect(listed.stdout + listed.stderr).not.toMatch(/ReferenceError|unexpected error/);
  });
});

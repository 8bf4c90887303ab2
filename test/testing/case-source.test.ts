import { describe, expect, it } from "vitest";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

describe("a case with two sources of the same thing", () => {
  it.each([
    ["input: {}\n    input_file: in.json", /input.*input_file|input_file.*input/],
    ["mocks: {}\n    cassette: c.json", /mocks.*cassette|cassette.*mocks/],
  ])("names the keys that conflict: %s", async (keys, names) => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\n",
      "t.test.yaml": `integration: hello\ncases:\n  - name: a\n    ${keys}\n`,
    });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/t\.test\.yaml:3:5 /);
    expect(result.stderr.split("\n")[1]).toMatch(names);
  });
});

describe("a matcher that cannot match", () => {
  it.each([
    ["{ $type: text }", /\$type must be one of string, number, integer/, "5:34"],
    ["{ $match: '[' }", /\$match is not a regular expression/, "5:34"],
  ])("is a test-matcher error at its place: %s", async (matcher, message, where) => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\n",
      "t.test.yaml": `integration: hello\ncases:\n  - name: a\n    expect:\n      output: { payload: { id: ${matcher} } }\n`,
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(where);
    expect(result.stdout + result.stderr).toMatch(message);
    expect(result.stdout + result.stderr).toContain("test-matcher");
  });
});

describe("a test file naming an integration the project does not have", () => {
  it("is a validate error at its integration key, with the nearest name", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\n",
      "t.test.yaml": "integration: helo\ncases:\n  - name: a\n",
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('no integration named "helo" in the project; did you mean "hello"?');
    expect(result.stdout).toContain("unknown-integration");
  });
});

describe("a case's request", () => {
  it("may be written as request, or read from an envelope file with request_file", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": `name: hello\non_success_hook: "output.payload = { params: input.params, method: input.method }"\n`,
      "requests/get.json": JSON.stringify({ method: "GET", params: { id: "7" } }),
      "t.test.yaml": `integration: hello
cases:
  - name: inline
    request: { method: GET, params: { id: "1" } }
    expect: { output: { payload: { params: { id: "1" }, method: GET } } }
  - name: from a file
    request_file: requests/get.json
    expect: { output: { payload: { params: { id: "7" }, method: GET } } }
`,
    });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.stdout).toMatch(/2 passed, 0 failed/);
    expect(result.code).toBe(0);
  });

  it("comes from one source only", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/hello.yaml": "name: hello\n",
      "t.test.yaml": "integration: hello\ncases:\n  - name: a\n    input: {}\n    request_file: r.json\n",
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("a case has one of input, request_file, not more");
  });
});

describe("a live case whose system needs an unset variable", () => {
  it("fails alone, saying why, while the mocked cases pass", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        "systems:\n  core:\n    adapter: http\n    base_url: http://127.0.0.1:9\n    headers:\n      X-Token: ${env:BASS_UNSET_TOKEN}\n",
      "integrations/hello.yaml":
        "name: hello\nservice_requests:\n  - formula_variable: core\n    system: core\n    field_mappings:\n      - { field: service_path, literal: /x }\n      - { field: method, literal: GET }\n",
      "t.test.yaml":
        "integration: hello\ncases:\n  - name: mocked\n    mocks: { core: { success: true, payload: {} } }\n  - name: live\n",
    });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/1 passed, 1 failed/);
    expect(result.stdout).toContain("the project's systems cannot start until these are set");
    expect(result.stdout).toContain("BASS_UNSET_TOKEN");
  });
});

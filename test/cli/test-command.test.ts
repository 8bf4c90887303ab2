import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { RunRecord } from "../../src/engine/types.js";
import { copySamples, createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

const masked = "XXXXXXXXXXXX";
const samples = join(import.meta.dirname, "../../samples");
const taxId = "123-45-6789";
const secret = "s3cr3t-value-77";

const integrations: Record<string, string> = {
  "integrations/customers.create.yaml": `name: customers.create
masks:
  - type: INPUT
    field: tax_id
service_requests:
  - formula_variable: core
    system: core
    field_mappings:
      - field: service_path
        literal: /core/v1/persons
      - field: method
        literal: POST
      - field: body.firstName
        value: input.payload.first_name
      - field: body.lastName
        value: input.payload.last_name
      - field: body.email
        value: input.payload.email
      - field: body.birthDate
        value: input.payload.date_of_birth
      - field: body.taxId
        value: input.payload.tax_id
on_success_hook: |
  output.status = 201
  output.payload = { customer_id: core.response.payload.personId }
`,
  "integrations/greet.yaml": `name: greet
masks:
  - type: INPUT
    field: secret
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - field: body.name
        value: input.payload.name
on_success_hook: |
  output.status = 201
  output.payload = { hello: t.response.payload.body.name, secret: input.payload.secret ?? null }
`,
  "integrations/batch.yaml": `name: batch
service_requests:
  - formula_variable: core
    system: core
    call_for_each: input.payload.ids
    call_if: sritem !== 'skip'
    field_mappings:
      - field: service_path
        value: "'/core/v1/persons/' + sritem"
      - field: method
        literal: GET
on_success_hook: |
  output.payload = core.map((call) => call && call.response.payload.firstName)
`,
  "integrations/boom.yaml": `name: boom
on_success_hook: |
  output.status = 201
  throw new Error('no customer id')
`,
  "integrations/leak.yaml": `name: leak
on_success_hook: |
  console.log(input.payload.secret)
`,
  "integrations/leak.masked.yaml": `name: leak.masked
masks:
  - type: INPUT
    field: secret
on_success_hook: |
  console.log(input.payload.secret)
`,
  "inputs/ada.json": JSON.stringify({
    first_name: "Ada",
    last_name: "Lovelace",
    email: "ada@example.com",
    date_of_birth: "1815-12-10",
    tax_id: taxId,
  }),
};

/** A project with the integrations above and the given test files (path → text). */
function createProject(files: Record<string, string>, projectFile = defaultProjectFile): string {
  return createTempDir({ "bass.config.yaml": projectFile, ...integrations, ...files });
}

const created = `{ core: { success: true, status: 201, payload: { personId: P000042, statusCode: 1 } } }`;

interface JsonReport {
  summary: { total: number; passed: number; failed: number; duration_ms: number; updated: boolean };
  cases: {
    file: string;
    integration: string;
    name: string;
    status: "passed" | "failed";
    duration_ms: number;
    run_id: string;
    differences: { path: string; message: string }[];
    produced_by: string[];
  }[];
}

async function runJson(dir: string, paths: string[] = [], env?: Record<string, string>) {
  const result = await runCli(["test", ...paths, "--reporter", "json"], {
    cwd: dir,
    ...(env ? { env } : {}),
  });
  return { code: result.code, stderr: result.stderr, report: JSON.parse(result.stdout) as JsonReport };
}

/** One test file of one case: the case's YAML lines below its name, indented by 4. */
function oneCase(integration: string, body: string): string {
  return `integration: ${integration}\ncases:\n  - name: the case\n${body
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")}\n`;
}

describe("bass test: expectations", () => {
  it.each<[string, string, string, number, string[]]>([
    ["state, passing", "greet", "input: { payload: { name: Ada } }\nexpect: { state: success }", 0, []],
    [
      "state, failing on a hook that throws",
      "boom",
      "expect: { state: success }",
      1,
      [
        "expect.state: expected success, the run ended in failure",
        "from item 2 FAILURE cell_error in on_success_hook (integrations/boom.yaml:4): boom: on_success_hook: no customer id",
      ],
    ],
    [
      "output, passing",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect: { output: { status: 201, payload: { customer_id: P000042 } } }`,
      0,
      [],
    ],
    [
      "output, failing",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect: { output: { status: 201, payload: { customer_id: P000043 } } }`,
      1,
      [
        'expect.output.payload.customer_id: expected "P000043", got "P000042"',
        "from on_success_hook or finally_hook, which set the output (status 201)",
      ],
    ],
    [
      "items, passing",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect:\n  items:\n    - { kind: INPUT }\n    - { kind: REQUEST, label: core, request: { payload: { body: { taxId: ${masked} } } }, response: { status: 201 } }\n    - { kind: OUTPUT, data: { status: 201 } }`,
      0,
      [],
    ],
    [
      "items, failing on their order",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect:\n  items: [{ kind: REQUEST, label: core }, { kind: INPUT }]`,
      1,
      ['expect.items[1]: no item {"kind":"INPUT"} after item 2; the run recorded OUTPUT'],
    ],
    [
      "never_recorded, passing on a masked value",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect: { never_recorded: ["${taxId}"] }`,
      0,
      [],
    ],
    [
      "never_recorded, failing on a value the run recorded",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: ${created}\nexpect: { never_recorded: [P000042] }`,
      1,
      [
        "expect.never_recorded[0]: a value that must never be recorded is in the run's record (in item 2, REQUEST)",
      ],
    ],
    [
      "state, failing on an adapter that answered success: false",
      "customers.create",
      `input_file: ../inputs/ada.json\nmocks: { core: { success: false, status: 503, payload: null, messages: ["503 Service Unavailable"] } }\nexpect: { state: success }`,
      1,
      [
        "expect.state: expected success, the run ended in failure",
        "from item 2 REQUEST core: 503 Service Unavailable",
      ],
    ],
  ])("checks %s", async (_label, integration, body, code, lines) => {
    const dir = createProject({ "tests/a.test.yaml": oneCase(integration, body) });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(code);
    const printed = result.stdout.split("\n").map((line) => line.trim());
    expect(printed[0]).toBe(`tests/a.test.yaml (${integration})`);
    expect(printed[1]).toMatch(new RegExp(`^${code ? "✗" : "✓"} the case \\d+ ms$`));
    expect(printed.slice(2, 2 + lines.length)).toEqual(lines);
    if (!code) expect(printed[2]).toBe("");
    if (code) {
      const runId = /^bass history show (\w{26})$/.exec(printed[2 + lines.length] ?? "")?.[1];
      expect(runId).toBeDefined();
      const shown = await runCli(["history", "show", runId as string, "--json"], { cwd: dir });
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: runId, integration, trigger: "test" });
    }
    expect(printed.at(-2)).toMatch(code ? /^0 passed, 1 failed / : /^1 passed, 0 failed /);
  });

  it("reads input_file relative to the test file, and refuses one that is missing (exit 2)", async () => {
    const dir = createProject({
      "tests/deep/a.test.yaml": oneCase(
        "customers.create",
        `input_file: ../../inputs/ada.json\nmocks: ${created}\nexpect:\n  items: [{ kind: INPUT, data: { payload: { first_name: Ada, tax_id: ${masked} } } }]`,
      ),
      "tests/b.test.yaml": oneCase(
        "customers.create",
        `input_file: ../inputs/nobody.json\nmocks: ${created}`,
      ),
      "tests/c.test.yaml": oneCase("customers.create", `input_file: ../bass.config.yaml\nmocks: ${created}`),
    });
    expect((await runCli(["test", "tests/deep"], { cwd: dir })).code).toBe(0);
    const missing = await runCli(["test", "tests/b.test.yaml"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(
      /^bass: cannot read input_file \.\.\/inputs\/nobody\.json \(tests\/b\.test\.yaml case "the case"\)/,
    );
    const notJson = await runCli(["test", "tests/c.test.yaml"], { cwd: dir });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/input_file \.\.\/bass\.config\.yaml \(.*\):1:1: not valid JSON/);
    expect(notJson.stderr).not.toContain("systems");
  });

  it("answers a call_for_each service request from a mock list by sridx, skipping null entries", async () => {
    const answer = (name: string) => `{ success: true, status: 200, payload: { firstName: ${name} } }`;
    const dir = createProject({
      "tests/batch.test.yaml": `integration: batch
cases:
  - name: every item
    input: { payload: { ids: [P1, skip, P3] } }
    mocks: { core: [${answer("Ada")}, null, ${answer("Grace")}] }
    expect:
      state: success
      output: { payload: [Ada, null, Grace] }
      items:
        - { kind: REQUEST, label: core, sridx: 0, request: { payload: { service_path: /core/v1/persons/P1 } } }
        - { kind: REQUEST, label: core, sridx: 2, response: { payload: { firstName: Grace } } }
        - { kind: OUTPUT }
  - name: a missing answer
    input: { payload: { ids: [P1, skip, P3] } }
    mocks: { core: [${answer("Ada")}] }
    expect: { state: success }
`,
    });
    const { code, report } = await runJson(dir);
    expect(code).toBe(1);
    expect(report.cases.map((result) => [result.name, result.status])).toEqual([
      ["every item", "passed"],
      ["a missing answer", "failed"],
    ]);
    expect(report.cases[1]?.produced_by).toEqual([
      'item 3 REQUEST core: tests/batch.test.yaml case "a missing answer" has no answer for service request "core[2]"',
    ]);
  });

  it("replays a cassette that bass run --record wrote against the mock core, masked", async () => {
    const dir = createProject({});
    const recorded = await runCli(
      ["run", "customers.create", "--input", "inputs/ada.json", "--record", "create.cassette.json", "--json"],
      { cwd: dir },
    );
    expect(recorded.code).toBe(0);
    const customerId = (JSON.parse(recorded.stdout) as { output: { payload: { customer_id: string } } })
      .output.payload.customer_id;
    expect(customerId).toMatch(/^P\d+$/);
    expect(readFileSync(join(dir, "create.cassette.json"), "utf8")).not.toContain(taxId);

    const testFile = (cassette: string | undefined) =>
      oneCase(
        "customers.create",
        `input_file: ../inputs/ada.json\n${cassette ? `cassette: ${cassette}\n` : ""}expect:\n  state: success\n  output: { status: 201, payload: { customer_id: ${customerId} } }\n  never_recorded: ["${taxId}"]`,
      );
    const files = {
      "tests/replay.test.yaml": testFile("../create.cassette.json"),
      "tests/live.test.yaml": testFile(undefined),
      "tests/none.test.yaml": testFile("none.json"),
      "tests/none.json": JSON.stringify({ integration: "customers.create", recorded_at: "x", exchanges: [] }),
    };
    mkdirSync(join(dir, "tests"));
    for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);

    // No core answers at CORE_URL now: the same case without the cassette fails, with it it passes.
    const offline = { NO_COLOR: "1", CORE_URL: "http://127.0.0.1:9" };
    const replayed = await runCli(["test", "tests/replay.test.yaml"], { cwd: dir, env: offline });
    expect(replayed.stdout).toMatch(/\n1 passed, 0 failed /);
    expect(replayed.code).toBe(0);
    const live = await runJson(dir, ["tests/live.test.yaml"], offline);
    expect(live.code).toBe(1);
    expect(live.report.cases[0]?.produced_by).toEqual([expect.stringMatching(/^item 2 REQUEST core: /)]);

    const empty = await runJson(dir, ["tests/none.test.yaml"], offline);
    expect(empty.code).toBe(1);
    expect(empty.report.cases[0]?.produced_by).toEqual([
      'item 2 REQUEST core: none.json holds no exchange for service request "core" (POST /core/v1/persons)',
    ]);
  });

  it.each([
    ["in a worker thread", {}],
    ["on bass's own thread", { workers: 0 }],
  ])("quotes an expected value the run masks masked, %s", async (_, serve) => {
    const projectFile = `${defaultProjectFile}${"workers" in serve ? "serve:\n  workers: 0\n" : ""}`;
    const dir = createProject(
      {
        "integrations/echo.masked.yaml": `name: echo.masked
masks:
  - type: INPUT
    field: secret
on_success_hook: "output.payload = { secret: input.payload.secret, other: 'x' }"
`,
        "tests/echo.test.yaml": oneCase(
          "echo.masked",
          `input: { payload: { secret: ${secret} } }\nexpect:\n  output: { payload: { secret: ${secret}, other: y } }`,
        ),
      },
      projectFile,
    );
    for (const reporter of ["text", "json", "junit"]) {
      const result = await runCli(["test", "--reporter", reporter], { cwd: dir, env: { NO_COLOR: "1" } });
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain(secret);
      expect(result.stdout).toContain("expect.output.payload.secret");
    }
  });

  it("refuses a cassette that is not one (exit 2)", async () => {
    const dir = createProject({
      "tests/a.test.yaml": oneCase("greet", "cassette: bad.json\ninput: { payload: { name: Ada } }"),
      "tests/bad.json": JSON.stringify({ exchanges: [{ formula_variable: "t" }] }),
    });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'the cassette bad.json (tests/a.test.yaml case "the case"): exchanges[0] needs',
    );
  });

  it.each([
    ["leak", 1],
    ["leak.masked", 0],
  ])("catches a secret that %s logs unless a mask hides it", async (integration, code) => {
    const dir = createProject({
      "tests/leak.test.yaml": oneCase(
        integration,
        `input: { payload: { secret: ${secret} } }\nexpect:\n  state: success\n  items: [{ kind: LOG, level: info }]\n  never_recorded: [${secret}]`,
      ),
    });
    for (const reporter of ["text", "json", "junit"]) {
      const result = await runCli(["test", "--reporter", reporter], { cwd: dir });
      expect(result.code).toBe(code);
      expect(result.stdout).not.toContain(secret);
      if (reporter === "text" && code) {
        expect(result.stdout).toContain(
          "expect.never_recorded[0]: a value that must never be recorded is in the run's record (in item 1, INPUT)",
        );
      }
    }
    const history = await runCli(["history", "--json"], { cwd: dir });
    const records = JSON.parse(history.stdout) as RunRecord[];
    const logged = records[0]?.items.find((item) => item.kind === "LOG");
    expect(logged?.kind === "LOG" && logged.data).toBe(code ? secret : masked);
  });
});

describe("bass test --update", () => {
  const commented = `# Tests of greet, kept by hand
integration: greet
cases:
  # the happy path
  - name: greets
    input: { payload: { name: Ada, secret: ${secret} } } # the secret is masked
    expect:
      state: success # stays as written
      output: { status: 200, payload: { hello: Bob } }
      items: [{ kind: REQUEST, label: t }]
  - name: greets without an expected output
    input: { payload: { name: Grace } }
`;

  it("writes the actual masked output into expect.output, keeps comments, and the cases then pass", async () => {
    const dir = createProject({ "tests/greet.test.yaml": commented });
    const updated = await runCli(["test", "--update"], { cwd: dir });
    expect(updated.stderr).toBe("");
    expect(updated.code).toBe(0);
    expect(updated.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^1 passed, 1 failed \(2 cases, \d+ ms\); 1 expected output updated$/,
    );

    const text = readFileSync(join(dir, "tests/greet.test.yaml"), "utf8");
    for (const comment of [
      "# Tests of greet, kept by hand",
      "# the happy path",
      "# the secret is masked",
      "# stays as written",
    ])
      expect(text).toContain(comment);
    const file = parseYaml(text) as { cases: { expect: Record<string, unknown> }[] };
    expect(file.cases[0]?.expect).toEqual({
      state: "success",
      output: { status: 201, payload: { hello: "Ada", secret: masked } },
      items: [{ kind: "REQUEST", label: "t" }],
    });
    // A case without an expected output expects none still; every other byte of the file is as written.
    expect(file.cases[1]?.expect).toBeUndefined();
    expect(text).toBe(
      commented.replace(
        "output: { status: 200, payload: { hello: Bob } }",
        `output: { status: 201, payload: { hello: Ada, secret: ${masked} } }`,
      ),
    );
    expect(text.match(new RegExp(secret, "g"))).toHaveLength(1);

    const again = await runCli(["test"], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\n2 passed, 0 failed \(2 cases, \d+ ms\)\n$/);
  });

  it("leaves a passing suite byte for byte as it was", async () => {
    const dir = createTempDir();
    copySamples(dir);
    const before = readFileSync(join(dir, "tests/customers.create.test.yaml"), "utf8");
    const updated = await runCli(["test", "--update"], { cwd: dir });
    expect(updated.code).toBe(0);
    expect(updated.stdout).not.toContain("updated");
    for (const name of readdirSync(join(samples, "tests")))
      expect(readFileSync(join(dir, "tests", name), "utf8")).toBe(
        readFileSync(join(samples, "tests", name), "utf8"),
      );
    expect(before).toContain("creates a customer in the embedded mock core");
  });

  it("writes what a live system gives anew as a $type matcher, and the next run passes", async () => {
    const dir = createTempDir();
    copySamples(dir);
    const file = join(dir, "tests/customers.create.test.yaml");
    const written = readFileSync(file, "utf8");
    const wrong = written.replace(
      "output: { status: 201, payload: { status: active } }",
      "output: { status: 201, payload: { status: pending } }",
    );
    expect(wrong).not.toBe(written);
    writeFileSync(file, wrong);
    const updated = await runCli(["test", "tests/customers.create.test.yaml", "--update"], { cwd: dir });
    expect(updated.code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toBe(
      written.replace(
        "output: { status: 201, payload: { status: active } }",
        "output: { status: 201, payload: { customer_id: { $type: string }, status: active, created_at: { $type: string } } }",
      ),
    );
    const again = await runCli(["test"], { cwd: dir });
    expect(again.code).toBe(0);
  });

  it("still fails a case whose other expectations do not hold", async () => {
    const dir = createProject({
      "tests/greet.test.yaml": oneCase(
        "greet",
        "input: { payload: { name: Ada } }\nexpect:\n  state: failure\n  output: { status: 200 }",
      ),
    });
    const updated = await runCli(["test", "--update"], { cwd: dir });
    expect(updated.code).toBe(1);
    const file = parseYaml(readFileSync(join(dir, "tests/greet.test.yaml"), "utf8")) as {
      cases: { expect: Record<string, unknown> }[];
    };
    expect(file.cases[0]?.expect).toEqual({
      state: "failure",
      output: { status: 201, payload: { hello: "Ada", secret: null } },
    });
    const again = await runJson(dir);
    expect(again.report.cases[0]?.differences).toEqual([
      { path: "expect.state", message: "expected failure, the run ended in success" },
    ]);
  });
});

describe("bass test reporters", () => {
  const files = {
    "tests/a.test.yaml": `integration: greet
cases:
  - name: greets Ada
    input: { payload: { name: Ada } }
    expect: { output: { payload: { hello: Ada } } }
  - name: 'greets <Grace> & "friends"'
    input: { payload: { name: Grace } }
    expect: { output: { status: 200, payload: { hello: Bob } } }
`,
    "tests/b.test.yaml": oneCase("boom", "expect: { state: failure }"),
  };

  it("text: a line per case under its file, and a closing line with the counts", async () => {
    const dir = createProject(files);
    const result = await runCli(["test"], { cwd: dir });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "tests/a.test.yaml (greet)",
      expect.stringMatching(/^ {2}✓ greets Ada \d+ ms$/),
      expect.stringMatching(/^ {2}✗ greets <Grace> & "friends" \d+ ms$/),
    ]);
    expect(lines.slice(3, 6)).toEqual([
      "      expect.output.status: expected 200, got 201",
      '      expect.output.payload.hello: expected "Bob", got "Grace"',
      "      from on_success_hook or finally_hook, which set the output (status 201)",
    ]);
    expect(lines.slice(7, 9)).toEqual([
      "tests/b.test.yaml (boom)",
      expect.stringMatching(/^ {2}✓ the case \d+ ms$/),
    ]);
    expect(lines.at(-2)).toBe("");
    expect(lines.at(-1)).toMatch(/^2 passed, 1 failed \(3 cases, \d+ ms\)$/);
  });

  it("json: a summary and one entry per case with its differences and where they come from", async () => {
    const dir = createProject(files);
    const { code, report, stderr } = await runJson(dir);
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(Object.keys(report)).toEqual(["summary", "cases"]);
    expect(report.summary).toEqual({
      total: 3,
      passed: 2,
      failed: 1,
      duration_ms: expect.any(Number),
      updated: false,
    });
    expect(report.cases).toEqual([
      {
        file: "tests/a.test.yaml",
        integration: "greet",
        name: "greets Ada",
        status: "passed",
        duration_ms: expect.any(Number),
        run_id: expect.stringMatching(/^\w{26}$/),
        differences: [],
        produced_by: [],
      },
      {
        file: "tests/a.test.yaml",
        integration: "greet",
        name: 'greets <Grace> & "friends"',
        status: "failed",
        duration_ms: expect.any(Number),
        run_id: expect.stringMatching(/^\w{26}$/),
        differences: [
          { path: "expect.output.status", message: "expected 200, got 201" },
          { path: "expect.output.payload.hello", message: 'expected "Bob", got "Grace"' },
        ],
        produced_by: ["on_success_hook or finally_hook, which set the output (status 201)"],
      },
      {
        file: "tests/b.test.yaml",
        integration: "boom",
        name: "the case",
        status: "passed",
        duration_ms: expect.any(Number),
        run_id: expect.stringMatching(/^\w{26}$/),
        differences: [],
        produced_by: [],
      },
    ]);
    expect(new Set(report.cases.map((result) => result.run_id)).size).toBe(3);
  });

  it("junit: well-formed XML with a testsuite per file and a testcase per case, failures with messages", async () => {
    const dir = createProject(files);
    const result = await runCli(["test", "--reporter", "junit"], { cwd: dir });
    expect(result.code).toBe(1);
    const xml = result.stdout;
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(XMLValidator.validate(xml)).toBe(true);

    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      parseAttributeValue: false,
      isArray: (name) => ["testsuite", "testcase", "failure"].includes(name),
    }).parse(xml) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["?xml", "testsuites"]);
    const seconds = expect.stringMatching(/^\d+\.\d{3}$/);
    const root = parsed.testsuites as Record<string, unknown>;
    expect(root).toEqual({
      name: "bass test",
      tests: "3",
      failures: "1",
      errors: "0",
      time: seconds,
      testsuite: [
        {
          name: "tests/a.test.yaml",
          tests: "2",
          failures: "1",
          errors: "0",
          time: seconds,
          testcase: [
            expect.objectContaining({ classname: "greet", name: "greets Ada", time: seconds }),
            expect.objectContaining({
              classname: "greet",
              name: 'greets <Grace> & "friends"',
              time: seconds,
              failure: [
                {
                  type: "expectation",
                  message: "expect.output.status: expected 200, got 201",
                  "#text": [
                    "expect.output.status: expected 200, got 201",
                    'expect.output.payload.hello: expected "Bob", got "Grace"',
                    "from on_success_hook or finally_hook, which set the output (status 201)",
                  ].join("\n"),
                },
              ],
            }),
          ],
        },
        {
          name: "tests/b.test.yaml",
          tests: "1",
          failures: "0",
          errors: "0",
          time: seconds,
          testcase: [expect.objectContaining({ classname: "boom", name: "the case", time: seconds })],
        },
      ],
    });
    const testcases = (root.testsuite as { testcase: Record<string, unknown>[] }[]).flatMap(
      (suite) => suite.testcase,
    );
    for (const testcase of testcases) {
      const children = Object.keys(testcase).filter(
        (key) => !["classname", "name", "time", "file"].includes(key),
      );
      expect(children).toEqual(
        testcase.name === "greets Ada" || testcase.name === "the case" ? [] : ["failure"],
      );
    }
  });
});

describe("bass test: cases in parallel", () => {
  // Each call waits until another call is in flight (or 2 s pass, so that a serial runner still ends) and
  // answers the most calls it saw in flight at once.
  const barrier = `let inFlight = 0;
let peak = 0;
const waiting = [];
export async function execute() {
  inFlight += 1;
  peak = Math.max(peak, inFlight);
  if (inFlight >= 2) for (const wake of waiting.splice(0)) wake();
  else await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 2000); });
  const seen = peak;
  inFlight -= 1;
  return { success: true, payload: { peak: seen }, messages: [] };
}
`;

  it("runs two cases at once", async () => {
    const dir = createProject(
      {
        "adapters/barrier.mjs": barrier,
        "integrations/slow.yaml": `name: slow
service_requests:
  - formula_variable: s
    system: slow
on_success_hook: |
  output.payload = s.response.payload
`,
        "tests/slow.test.yaml": `integration: slow
cases:
  - name: first
    expect: { output: { payload: { peak: 2 } } }
  - name: second
    expect: { output: { payload: { peak: 2 } } }
`,
      },
      // One worker thread, whose module the two cases share: they meet in it when they run at once.
      `${defaultProjectFile}  slow:\n    adapter: ./adapters/barrier.mjs\nserve:\n  workers: 1\n`,
    );
    const { code, report } = await runJson(dir);
    expect(report.cases.map((result) => [result.name, result.status, result.differences])).toEqual([
      ["first", "passed", []],
      ["second", "passed", []],
    ]);
    expect(code).toBe(0);
  });
});

describe("bass test: usage errors (exit 2)", () => {
  it.each<[string, Record<string, string>, string[], RegExp]>([
    ["no test files", {}, [], /^bass: no \*\.test\.yaml files in .+\n$/],
    [
      "no test files in a folder",
      { "tests/readme.md": "none here" },
      ["tests"],
      /^bass: no \*\.test\.yaml files in tests \(--pass-with-no-tests passes without them\)\n$/,
    ],
    [
      "a missing path",
      { "tests/a.test.yaml": oneCase("greet", "expect: {}") },
      ["tests/a.test.yaml", "tests/nothere.test.yaml"],
      /^bass: no such file or folder: tests\/nothere\.test\.yaml\n$/,
    ],
    [
      "an unknown key, at its file:line:col",
      { "tests/a.test.yaml": oneCase("greet", "input: { payload: {} }\nexpect:\n  stat: success") },
      [],
      /\n {2}tests\/a\.test\.yaml:6:7 {2}unknown key "stat" in cases\[0\]\.expect; did you mean "state"\? {2}\(schema-unknown-key\)\n/,
    ],
    [
      "a state that is not one, at its file:line:col",
      {
        "tests/a.test.yaml": `integration: greet\ncases:\n  - name: a\n    expect: { state: passed }\n`,
      },
      [],
      /\n {2}tests\/a\.test\.yaml:4:15 {2}cases\[0\]\.expect\.state must be one of "success", "failure" {2}\(schema-enum\)\n/,
    ],
    [
      "a file without cases",
      { "tests/a.test.yaml": "integration: greet\n" },
      [],
      /\n {2}tests\/a\.test\.yaml:1:1 {2}.*cases.*\n/,
    ],
    [
      "two cases with the same name",
      {
        "tests/a.test.yaml": `integration: greet\ncases:\n  - name: greets\n  - name: other\n  - name: greets\n`,
      },
      [],
      /tests\/a\.test\.yaml:5:5 {2}two cases are named "greets" {2}\(duplicate-case\)/,
    ],
    [
      "an unknown integration",
      { "tests/a.test.yaml": oneCase("customers.delete", "expect: {}") },
      [],
      /^bass: tests\/a\.test\.yaml: no integration named customers\.delete in the project; did you mean "customers\.create"\?; known: "[^\n]*"\n$/,
    ],
    [
      "a test of a definition with an error",
      {
        "tests/a.test.yaml": oneCase("broken", "expect: {}"),
        "integrations/broken.yaml": "name: broken\nbefore_hook: 'output.status = ('\n",
      },
      [],
      /integrations\/broken\.yaml:2:\d+ .*\(cell-syntax\)/,
    ],
  ])("refuses %s", async (_label, files, paths, stderr) => {
    const dir = createProject(files);
    const result = await runCli(["test", ...paths], { cwd: dir });
    expect(result.stderr).toMatch(stderr);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(2);
  });

  it("runs the cases of the other integrations when one definition is broken, after a warning naming it", async () => {
    const dir = createProject({
      "tests/a.test.yaml": oneCase("greet", "input: { payload: { name: Ada } }\nexpect: { state: success }"),
      "integrations/broken.yaml": "name: broken\nbefore_hook: 'output.status = ('\n",
    });
    const result = await runCli(["test"], { cwd: dir });
    expect(result.stderr).toBe(
      "warning: leaving out 1 broken definition (bass validate shows why): integrations/broken.yaml\n",
    );
    expect(result.stdout).toMatch(/1 passed, 0 failed/);
    expect(result.code).toBe(0);
  });

  it("refuses an unknown reporter", async () => {
    const dir = createProject({ "tests/a.test.yaml": oneCase("greet", "expect: {}") });
    const result = await runCli(["test", "--reporter", "tap"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("tap");
  });
});

describe("bass test with no test file", () => {
  it("is a usage error (exit 2) that names --pass-with-no-tests, and a pass with it", async () => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile });
    const refused = await runCli(["test"], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /no \*\.test\.yaml files in .*\(--pass-with-no-tests passes without them\)/,
    );
    const passed = await runCli(["test", "--pass-with-no-tests"], { cwd: dir });
    expect([passed.code, passed.stdout]).toEqual([0, ""]);
    expect(passed.stderr).toMatch(/no \*\.test\.yaml files in .*: nothing to run, and that passes\n$/);
  });
});

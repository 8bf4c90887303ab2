import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../_helpers.js";
import { startServeInProcess } from "../serve/_serve-in-process.js";

// A platform export, imported as a user would, then validated, run, tested and served unchanged.
const exportFile = join(import.meta.dirname, "..", "fixtures", "glyue", "export.json");
const env = { CORE_URL: "mockcore:", CRM_URL: "http://127.0.0.1:9" };
const person = {
  email: "ada@example.com",
  first_name: "Ada",
  last_name: "Lovelace",
  country: "GB",
  segment: "retail",
  income: "52000.50",
  ssn: "123-45-6789",
  "tax:id": "TX-99887766",
  date_of_birth: "1990-01-01",
  beneficiaries: [{ name: "Byron", ssn: "987-65-4321" }],
};

const onboardingTests = `integration: customer_onboard
cases:
  - name: creates the customer at the core, the tax id masked
    input:
      payload: ${JSON.stringify(person)}
    mocks:
      core: { success: true, status: 201, payload: { personId: P000042, statusCode: 1 } }
    expect:
      state: success
      output: { status: 201, payload: { customer_id: P000042 } }
      never_recorded: ["123-45-6789", "987-65-4321"]
  - name: fails, through on_failure_hook, when the core refuses the customer
    input:
      payload: ${JSON.stringify(person)}
    mocks:
      core: { success: false, status: 409, payload: { errorCode: DUPLICATE } }
    expect:
      state: failure
      output: { status: 502, payload: { error: the customer could not be created } }
  - name: refuses an e-mail address without @
    input:
      payload: ${JSON.stringify({ ...person, email: "nobody" })}
    expect:
      state: failure
      items:
        - { kind: INPUT }
        - { kind: VALIDATION_FAILURE, message: email must hold an @ }
`;

// Not from the platform: a cell that never ends, to see serve's time limit on Python.
const endless =
  "name: endless\nlanguage: python\nendpoints: [{ method: POST, path: /endless }]\non_success_hook: |\n  while True:\n      pass\n";

describe("an integration export of the platform, unchanged", () => {
  const root = mkdtempSync(join(tmpdir(), "bass-glyue-"));
  const dir = join(root, "project");

  beforeAll(async () => {
    const imported = await runCli(["import", "glyue", exportFile, "--out", "project"], { cwd: root });
    expect(imported.code).toBe(0);
  }, 60_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("validates without errors", async () => {
    const validate = await runCli(["validate", "--format", "json"], { cwd: dir, env });
    expect(validate.code).toBe(0);
    const report = JSON.parse(validate.stdout) as { summary: { files: number; errors: number } };
    expect(report.summary).toMatchObject({ files: 4, errors: 0 });
  }, 60_000);

  it("runs under bass run against the embedded mock core, its masks applied", async () => {
    writeFileSync(join(dir, "ada.json"), JSON.stringify(person));
    const run = await runCli(["run", "customer_onboard", "--input", "ada.json", "--json"], { cwd: dir, env });
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout);
    expect(shown.output.status).toBe(201);
    expect(shown.output.payload.customer_id).toMatch(/^P\d{6}$/);
    expect(run.stdout).not.toContain("123-45-6789");
    expect(run.stdout).not.toContain("987-65-4321");
  }, 60_000);

  it("runs an input as the platform's run history holds it, fullpath and all", async () => {
    const envelope = {
      method: "POST",
      fullpath: "/integrations/execute/customer_onboard",
      headers: { "content-type": "application/json" },
      params: {},
      payload: { ...person, email: "grace@example.com" },
    };
    writeFileSync(join(dir, "history-input.json"), JSON.stringify(envelope));
    const run = await runCli(
      ["run", "customer_onboard", "--input", "history-input.json", "--input-envelope", "--json"],
      { cwd: dir, env },
    );
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout);
    expect(shown.output.status).toBe(201);
    expect(shown.history.items[0].data.fullpath).toBe("/integrations/execute/customer_onboard");
  }, 60_000);

  it("passes tests written for it under bass test", async () => {
    writeFileSync(join(dir, "tests.customer_onboard.test.yaml"), onboardingTests);
    const test = await runCli(["test"], { cwd: dir, env });
    expect(test.stdout).toMatch(/3 passed, 0 failed/);
    expect(test.code).toBe(0);
  }, 60_000);

  describe("under bass serve", () => {
    let serve: Awaited<ReturnType<typeof startServeInProcess>>;
    let base: string;

    beforeAll(async () => {
      writeFileSync(join(dir, "integrations", "endless.yaml"), endless);
      writeFileSync(
        join(dir, "bass.config.yaml"),
        `${(await import("node:fs")).readFileSync(join(dir, "bass.config.yaml"), "utf8")}limits:\n  cell_timeout_ms: 200\n`,
      );
      serve = await startServeInProcess(dir, env);
      base = `http://127.0.0.1:${serve.port}`;
    }, 60_000);

    afterAll(async () => {
      await serve?.stop();
    });

    it("answers the platform's endpoint, and a Python time-out with 504 while it goes on answering", async () => {
      const post = (path: string, body: unknown) =>
        fetch(base + path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const created = await post("/integrations/execute/customer_onboard", person);
      expect(created.status).toBe(201);
      expect(((await created.json()) as { customer_id: string }).customer_id).toMatch(/^P\d{6}$/);
      const timedOut = await post("/endless", {});
      expect(timedOut.status).toBe(504);
      const again = await post("/integrations/execute/customer_onboard", {
        ...person,
        email: "grace@example.com",
      });
      expect(again.status).toBe(201);
    }, 60_000);
  });
});

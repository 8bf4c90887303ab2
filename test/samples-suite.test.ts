import { cpSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, runCli } from "./_helpers.js";

const samples = join(import.meta.dirname, "..", "samples");
const names = [
  "customers.retrieve",
  "monetary-transactions.retrieve",
  "customers.create",
  "deposit-accounts.create",
  "monetary-internal-transfers.create",
  "onboarding.create",
];

interface ReportedCase {
  file: string;
  integration: string;
  name: string;
  status: "passed" | "failed";
  differences: { path: string; message: string }[];
  produced_by: string[];
}

interface Report {
  summary: { total: number; passed: number; failed: number };
  cases: ReportedCase[];
}

/** A copy of samples/ without its .bass folder: a fresh history and a fresh mock core data file. */
function samplesCopy(): string {
  const dir = createTempDir();
  cpSync(samples, dir, {
    recursive: true,
    filter: (path) => !relative(samples, path).split(sep).includes(".bass"),
  });
  return dir;
}

/** `bass test --reporter json` over the whole project in `dir`. */
async function bassTest(dir: string): Promise<{ code: number; stderr: string; report: Report }> {
  const result = await runCli(["test", "--project", dir, "--reporter", "json"], { cwd: dir });
  return { code: result.code, stderr: result.stderr, report: JSON.parse(result.stdout) as Report };
}

/** One line per failed case, with what differed and where it came from. */
function failures(report: Report): string {
  return report.cases
    .filter((testCase) => testCase.status !== "passed")
    .map((testCase) =>
      [
        `${testCase.integration}: ${testCase.name}`,
        ...testCase.differences.map((difference) => `    ${difference.path}: ${difference.message}`),
        ...testCase.produced_by.map((cause) => `    from ${cause}`),
      ].join("\n"),
    )
    .join("\n");
}

function expectAllPassed(run: { code: number; stderr: string; report: Report }): void {
  const failed = failures(run.report);
  expect(failed, `failed cases:\n${failed}`).toBe("");
  expect(run.report.summary.failed).toBe(0);
  expect(run.report.summary.passed).toBe(run.report.cases.length);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}

describe("bass test on samples/tests (the sample integrations' own test suite)", () => {
  it("passes every case, for all six integrations, and again on a second run with the state it left", async () => {
    const dir = samplesCopy();

    const first = await bassTest(dir);
    expectAllPassed(first);
    const integrations = new Set(first.report.cases.map((testCase) => testCase.integration));
    expect([...integrations].sort()).toEqual([...names].sort());
    for (const name of names) {
      const cases = first.report.cases.filter((testCase) => testCase.integration === name);
      // A handful of cases each: mocked successes and failures, and runs against the embedded mock core.
      expect(cases.length, `cases of ${name}`).toBeGreaterThanOrEqual(5);
    }

    // The embedded mock core kept what the first run created and posted in .bass/mockcore.json;
    // the cases must not depend on a fresh core.
    const second = await bassTest(dir);
    expectAllPassed(second);
    expect(second.report.cases.map((testCase) => `${testCase.integration}: ${testCase.name}`)).toEqual(
      first.report.cases.map((testCase) => `${testCase.integration}: ${testCase.name}`),
    );
  }, 60_000);
});

import { dirname, resolve } from "node:path";
import type { Env } from "../definition/load.js";
import type { CompiledIntegration } from "../engine/compile.js";
import type { RunRecord } from "../engine/record.js";
import { type RunInput, runIntegration } from "../engine/run.js";
import { BassError } from "../errors.js";
import {
  type AdapterChoice,
  createProjectAdapters,
  type ProjectAdapters,
  readCassette,
} from "../project/adapters.js";
import { readJsonFile } from "../project/data-file.js";
import { openHistory, type Project } from "../project/open.js";
import { assertUsable } from "../project/usable.js";
import { checkExpectations, type Difference, outputOf } from "./expectations.js";
import { loadTestFile } from "./lint-test-file.js";
import type { TestCase, TestFile } from "./test-file.js";

export interface CaseResult {
  file: string;
  integration: string;
  name: string;
  status: "passed" | "failed";
  duration_ms: number;
  differences: Difference[];
  /** The items and cells that produced what differs: the run's failures, or the hook that set the output. */
  producedBy: string[];
  runId: string | undefined;
  /** The masked record, for --update and reporters. */
  record: RunRecord | undefined;
}

export interface RunTestsOptions {
  /** The project as `openProject` opened it, every definition loaded. */
  project: Project;
  cwd: string;
  env: Env;
  /** `*.test.yaml` files to run (absolute paths). */
  files: readonly string[];
  /** How many cases run at once. */
  concurrency?: number;
  onCaseDone?: (done: number, total: number) => void;
}

export interface LoadedTests {
  file: string;
  path: string;
  tests: TestFile;
}

/** Runs every case of the test files; a case's runs are real runs with trigger `test`, kept in history. */
export async function runTests(
  options: RunTestsOptions,
): Promise<{ results: CaseResult[]; loaded: LoadedTests[] }> {
  const load = { cwd: options.cwd, env: options.env };
  const { project } = options;
  assertUsable(project.issues, "the project");
  const loaded = options.files.map((path) => loadTests(path, load));
  const integrationOf = (name: string, file: string) => {
    const definition = project.definitions.find((candidate) => candidate.value.name === name);
    if (!definition)
      throw new BassError("INTEGRATION_NOT_FOUND", `${file}: no integration named ${name} in the project`);
    return project.compile(definition);
  };
  const jobs = loaded.flatMap((entry) =>
    entry.tests.cases.map((testCase) => ({
      entry,
      testCase,
      integration: integrationOf(entry.tests.integration, entry.file),
    })),
  );

  const history = openHistory(project);
  const adapters = createProjectAdapters(project);
  const results: CaseResult[] = new Array(jobs.length);
  let done = 0;
  try {
    await forEachLimited(jobs, options.concurrency ?? 4, async (job, index) => {
      results[index] = await runCase(job.entry, job.testCase, job.integration, project, adapters);
      if (results[index]?.record) history.write(results[index].record);
      options.onCaseDone?.(++done, jobs.length);
    });
  } finally {
    await history.flush();
    await adapters.close();
  }
  return { results, loaded };
}

async function runCase(
  entry: LoadedTests,
  testCase: TestCase,
  integration: CompiledIntegration,
  project: Project,
  adapters: ProjectAdapters,
): Promise<CaseResult> {
  const started = performance.now();
  const base = { file: entry.file, integration: integration.name, name: testCase.name };
  const result = await runIntegration(integration, inputOf(entry, testCase), {
    ...project.limits,
    adapters: await adapters.resolverFor(await adapterChoice(entry, testCase)),
    trigger: "test",
    secrets: project.secrets,
  });
  const differences = checkExpectations(testCase.expect ?? {}, result.record);
  return {
    ...base,
    status: differences.length ? "failed" : "passed",
    duration_ms: Math.round(performance.now() - started),
    differences,
    producedBy: differences.length ? producedBy(result.record, differences) : [],
    runId: result.runId,
    record: result.record,
  };
}

/** Where to look first: the run's failures with their cells and lines, else the hook that shaped its output. */
function producedBy(record: RunRecord, differences: readonly Difference[]): string[] {
  const failures = record.items.flatMap((item) =>
    item.kind === "FAILURE"
      ? [
          `item ${item.seq} FAILURE ${item.error.code}${item.error.cell ? ` in ${item.error.cell}` : ""}${item.error.line ? ` (line ${item.error.line})` : ""}: ${item.error.message}`,
        ]
      : item.kind === "VALIDATION_FAILURE"
        ? [`item ${item.seq} VALIDATION_FAILURE ${item.label}: ${item.message}`]
        : item.kind === "REQUEST" && item.response && !item.response.success
          ? [`item ${item.seq} REQUEST ${item.label}: ${item.response.messages.join("; ")}`]
          : [],
  );
  if (failures.length) return failures;
  if (!differences.some((difference) => /^expect\.(output|state)/.test(difference.path))) return [];
  const output = outputOf(record);
  return [
    `${record.status === "success" ? "on_success_hook" : "on_failure_hook"} or finally_hook, which set the output (status ${output?.status ?? "none"})`,
  ];
}

/** A case's `mocks`, its `cassette` (relative to the test file), or the project's systems. */
async function adapterChoice(entry: LoadedTests, testCase: TestCase): Promise<AdapterChoice> {
  const where = `${entry.file} case ${JSON.stringify(testCase.name)}`;
  if (testCase.mocks) return { kind: "mock", answers: testCase.mocks, source: where };
  if (testCase.cassette) {
    const path = resolve(dirname(entry.path), testCase.cassette);
    const cassette = await readCassette(path, `${testCase.cassette} (${where})`);
    return { kind: "cassette", cassette, source: testCase.cassette };
  }
  return { kind: "live" };
}

function inputOf(entry: LoadedTests, testCase: TestCase): RunInput {
  if (testCase.input_file) {
    const path = resolve(dirname(entry.path), testCase.input_file);
    return {
      payload: readJsonFile(
        path,
        `input_file ${testCase.input_file} (${entry.file} case ${JSON.stringify(testCase.name)})`,
      ),
    };
  }
  const input = testCase.input ?? {};
  return {
    payload: input.payload ?? {},
    method: input.method,
    path: input.path,
    params: input.params,
    headers: input.headers,
  };
}

function loadTests(path: string, load: { cwd: string; env: Env }): LoadedTests {
  const { file, issues } = loadTestFile(path, load);
  assertUsable(issues, file.file);
  return { file: file.file, path, tests: file.value };
}

/** Runs `work` over the items with at most `limit` at a time. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
}

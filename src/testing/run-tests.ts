import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Env, LoadedDefinition } from "../definition/load.js";
import type { CompiledIntegration } from "../engine/compile.js";
import { addHits, type CoverageHits } from "../engine/coverage.js";
import type { Item, RunInput, RunRecord } from "../engine/types.js";
import type { VaultStore } from "../engine/vault.js";
import { isBassError } from "../errors.js";
import type { HistoryStore } from "../history/store.js";
import { pythonTask } from "../pool/python-tasks.js";
import { workerCount } from "../pool/worker-count.js";
import {
  type AdapterChoice,
  createProjectAdapters,
  type ProjectAdapters,
  readCassette,
} from "../project/adapters.js";
import { readJsonFile } from "../project/data-file.js";
import { envelopeInput } from "../project/envelope.js";
import { openHistory, type Project } from "../project/open.js";
import { assertUsable, formatIssueList, isBlocking, issuesOf } from "../project/usable.js";
import { projectVaults } from "../project/vaults.js";
import { createTaskPlace } from "../runner/run-task.js";
import { recordOf } from "../runner/runner.js";
import { createThreadRunner } from "../runner/thread-runner.js";
import { suggestion } from "../suggest.js";
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
  /** Worker threads the cases run in (default: as `serve.workers`); 0 runs them on bass's own thread. */
  workers?: number;
  onCaseDone?: (done: number, total: number) => void;
  /**
   * Called with a test file's results once its cases, and those of every file before it, have finished:
   * files report in their order, each as soon as it can.
   */
  onFileDone?: (results: CaseResult[]) => void;
  /** Runs only the cases it accepts, by test file (as shown) and case name. */
  only?: ((file: string, name: string) => boolean) | undefined;
  /** Starts no case after the first one that fails (cases under way finish). */
  bail?: boolean | undefined;
  /** Where the runs' definition coverage is added up (`--coverage`); none is counted without it. */
  coverage?: CoverageHits | undefined;
}

export interface LoadedTests {
  file: string;
  path: string;
  tests: TestFile;
}

/** A test file whose cases could not run: its own findings, or its integration's, or no such integration. */
export interface BlockedTests {
  file: string;
  why: string;
}

/** Runs every case of the test files; a case's runs are real runs with trigger `test`, kept in history. */
export async function runTests(
  options: RunTestsOptions,
): Promise<{ results: CaseResult[]; loaded: LoadedTests[]; blocked: BlockedTests[] }> {
  const load = { cwd: options.cwd, env: options.env };
  const { project } = options;
  // Only the project file stops the suite: a broken definition or test file blocks only its own cases.
  assertUsable(issuesOf(project.issues, [project.file.file]), "the project");
  const blocked: BlockedTests[] = [];
  const loaded: LoadedTests[] = [];
  for (const path of options.files) {
    const entry = loadTests(path, load);
    const why = typeof entry === "string" ? entry : integrationProblem(project, entry.tests.integration);
    if (typeof entry !== "string" && why === undefined) loaded.push(entry);
    else
      blocked.push({
        file: typeof entry === "string" ? relativeFile(path, options.cwd) : entry.file,
        why: why ?? "",
      });
  }
  const integrationOf = (name: string) =>
    project.compile(
      project.definitions.find((candidate) => candidate.value.name === name) as LoadedDefinition,
    );
  const jobs: Job[] = loaded.flatMap((entry) =>
    entry.tests.cases
      .filter((testCase) => options.only?.(entry.file, testCase.name) ?? true)
      .map((testCase) => ({
        entry,
        testCase,
        integration: integrationOf(entry.tests.integration),
      })),
  );

  const history = openHistory(project);
  const adapters = createProjectAdapters(project);
  // Cases run against vaults seeded afresh from the project file: a suite neither reads what runs changed
  // in the project's vaults nor changes them.
  const vaultDir = mkdtempSync(join(tmpdir(), "bass-test-vaults-"));
  const vaults = projectVaults({ dir: vaultDir, config: project.config }, options.env, project.dir);
  const workers = options.workers ?? workerCount(project.config);
  const runner = await createCaseRunner(options, project, { adapters, history, vaultDir, vaults }, workers);
  const results: CaseResult[] = new Array(jobs.length);
  const files = fileReporter(jobs, results, options.onFileDone);
  const runCase = async (job: Job): Promise<CaseResult> => {
    const started = performance.now();
    const input = inputOf(job.entry, job.testCase);
    const choice = await adapterChoice(job.entry, job.testCase);
    const expected = expectedTexts(job.testCase.expect);
    let caseRun: CaseRun;
    try {
      caseRun = await runner.run(job.integration, input, choice, expected);
    } catch (error) {
      // The live systems cannot start (a system's variable is unset): this case fails, saying why.
      if (!isBassError(error) || error.code !== "DEFINITION_INVALID") throw error;
      return unrunCase(job.entry, job.testCase, error.message);
    }
    const { record, maskedTexts } = caseRun;
    const ms = performance.now() - started;
    return maskExpected(judgeCase(job.entry, job.testCase, record, ms), expected, maskedTexts);
  };
  let done = 0;
  let failed = false;
  try {
    await forEachLimited(jobs, options.concurrency ?? 4, async (job, index) => {
      if (!(failed && options.bail)) {
        const result = await runCase(job);
        results[index] = result;
        failed ||= result.status === "failed";
        options.onCaseDone?.(++done, jobs.length);
      }
      files.caseDone(index);
    });
  } finally {
    await history.flush();
    await runner.close();
    await adapters.close();
    rmSync(vaultDir, { recursive: true, force: true });
  }
  // --bail leaves the cases it did not start out of the results.
  return { results: results.filter((result) => result !== undefined), loaded, blocked };
}

/** One case to run, with its test file and its compiled integration. */
interface Job {
  entry: LoadedTests;
  testCase: TestCase;
  integration: CompiledIntegration;
}

/**
 * Hands each test file's results to `report` in file order, as soon as the file's cases and those of the
 * files before it are done. Jobs come grouped by file, in file order.
 */
function fileReporter(
  jobs: readonly Job[],
  results: readonly (CaseResult | undefined)[],
  report: ((results: CaseResult[]) => void) | undefined,
) {
  const finished = new Array<boolean>(jobs.length).fill(false);
  let next = 0;
  return {
    caseDone(index: number) {
      finished[index] = true;
      while (next < jobs.length) {
        const entry = jobs[next]?.entry;
        let end = next;
        while (end < jobs.length && jobs[end]?.entry === entry) end++;
        if (!finished.slice(next, end).every(Boolean)) return;
        const mine = results.slice(next, end).filter((result) => result !== undefined);
        if (mine.length) report?.(mine);
        next = end;
      }
    },
  };
}

/** A case that could not run: failed, with why as its one difference. */
function unrunCase(entry: LoadedTests, testCase: TestCase, why: string): CaseResult {
  return {
    file: entry.file,
    integration: entry.tests.integration,
    name: testCase.name,
    status: "failed",
    duration_ms: 0,
    differences: [{ path: "run", message: why }],
    producedBy: [],
    runId: undefined,
    record: undefined,
  };
}

/** Why a test file's integration cannot run: there is none of that name, or it has blocking findings. */
function integrationProblem(project: Project, name: string): string | undefined {
  const definition = project.definitions.find((candidate) => candidate.value.name === name);
  if (!definition) {
    const known = project.definitions.map((candidate) => candidate.value.name);
    return `no integration named ${name} in the project${suggestion(name, known)}`;
  }
  const findings = issuesOf(project.issues, [definition.file]).filter(isBlocking);
  return findings.length
    ? `integration ${name} cannot run until these are fixed:\n${formatIssueList(findings)}`
    : undefined;
}

function relativeFile(path: string, cwd: string): string {
  return relative(cwd, path).split(sep).join("/");
}

/** A case's run: its record, and the case's expected values masked as the run masked its record. */
interface CaseRun {
  record: RunRecord;
  maskedTexts: string[] | undefined;
}

/**
 * Runs cases with a runner: on bass's own thread, or in worker threads as serve runs integrations (a case
 * whose worker dies fails with it). A live case's systems use the mock core of bass's own thread, so that
 * every case sees one core's state.
 */
async function createCaseRunner(
  options: RunTestsOptions,
  project: Project,
  where: { adapters: ProjectAdapters; history: HistoryStore; vaultDir: string; vaults: VaultStore },
  workers: number,
) {
  const { adapters, history, vaults } = where;
  const runner = workers > 0 ? await createPool(options, project, where, workers) : undefined;
  const here = createThreadRunner(
    createTaskPlace(project, { resolverFor: (choice) => adapters.resolverFor(choice), vaults }),
  );
  let mockcoreUrl: Promise<string | undefined> | undefined;
  return {
    async run(
      integration: CompiledIntegration,
      input: RunInput,
      choice: AdapterChoice,
      maskTexts: string[],
    ): Promise<CaseRun> {
      if (runner && choice.kind === "live")
        mockcoreUrl ??= adapters.resolverFor(choice).then(() => adapters.mockcoreUrl());
      const task = {
        version: 1,
        integration: integration.name,
        input,
        trigger: "test" as const,
        choice,
        returnRecord: true,
        maskTexts,
        coverage: options.coverage !== undefined,
      };
      const result = await (runner ?? here).run(
        { ...task, mockcoreUrl: await mockcoreUrl },
        undefined,
        pythonTask(integration.definition, project),
      );
      for (const child of result.childRecords ?? []) history.writeLine(child.runId, child.line);
      history.writeLine(result.runId, result.recordLine);
      if (options.coverage && result.coverage) addHits(options.coverage, result.coverage);
      return { record: recordOf(result), maskedTexts: result.maskedTexts };
    },
    close: () => Promise.all([here.close(), runner?.close()]),
  };
}

/** The worker threads of `bass test`, whose Python cases' calladapter and callint are made here. */
async function createPool(
  options: RunTestsOptions,
  project: Project,
  {
    adapters,
    history,
    vaultDir,
    vaults,
  }: { adapters: ProjectAdapters; history: HistoryStore; vaultDir: string; vaults: VaultStore },
  workers: number,
) {
  const { createRunPool } = await import("../pool/run-pool.js");
  const { createRemoteHandler } = await import("../pool/remote-handler.js");
  const remote = createRemoteHandler({
    current: () => ({ project, adapters, vaults }),
    keep: (record) => history.write(record),
    waitForChildren: true,
  });
  return createRunPool({ project, cwd: options.cwd, env: options.env, workers, vaultDir, remote });
}

/** Every text and number a case's expectations hold: the values a report may quote. */
function expectedTexts(expect: unknown): string[] {
  if (typeof expect === "string") return [expect];
  if (typeof expect === "number") return [String(expect)];
  if (expect === null || typeof expect !== "object") return [];
  return Object.values(expect).flatMap(expectedTexts);
}

/**
 * A result whose messages quote an expected value the run masks (a tax id a case expects in the clear)
 * quote it masked: a report shows no value the record hides.
 */
function maskExpected(result: CaseResult, texts: string[], masked: string[] | undefined): CaseResult {
  const hidden = texts.flatMap((text, index) => {
    const mask = masked?.[index];
    return mask !== undefined && mask !== text ? [[text, mask] as const] : [];
  });
  if (hidden.length === 0) return result;
  const scrub = (message: string) =>
    hidden.reduce((text, [value, mask]) => text.replaceAll(value, mask), message);
  return {
    ...result,
    differences: result.differences.map((difference) => ({
      ...difference,
      message: scrub(difference.message),
    })),
    producedBy: result.producedBy.map(scrub),
  };
}

/** A case's result: its expectations held against the run's record. */
function judgeCase(entry: LoadedTests, testCase: TestCase, record: RunRecord, ms: number): CaseResult {
  const died = record.items.find((item) => item.kind === "FAILURE" && item.error.code === "worker_died");
  const differences = [
    ...(died?.kind === "FAILURE" ? [{ path: "run", message: died.error.message }] : []),
    ...checkExpectations(testCase.expect ?? {}, record),
  ];
  return {
    file: entry.file,
    integration: record.integration,
    name: testCase.name,
    status: differences.length ? "failed" : "passed",
    duration_ms: Math.round(ms),
    differences,
    producedBy: differences.length ? producedBy(record, differences) : [],
    runId: record.id,
    record,
  };
}

/** Where to look first: the run's failures with their cells and lines, else the hook that shaped its output. */
function producedBy(record: RunRecord, differences: readonly Difference[]): string[] {
  const failures = record.items.flatMap((item) => {
    const why = whyFailed(item);
    return why === undefined ? [] : [`item ${item.seq} ${item.kind} ${why}`];
  });
  if (failures.length) return failures;
  if (!differences.some((difference) => /^expect\.(output|state)/.test(difference.path))) return [];
  const output = outputOf(record);
  return [
    `${record.status === "success" ? "on_success_hook" : "on_failure_hook"} or finally_hook, which set the output (status ${output?.status ?? "none"})`,
  ];
}

/** What an item says of why its run failed: a failure's code, cell and line, a rule's message, a call's. */
function whyFailed(item: Item): string | undefined {
  if (item.kind === "VALIDATION_FAILURE") return `${item.label}: ${item.message}`;
  if (item.kind === "REQUEST")
    return item.response && !item.response.success
      ? `${item.label}: ${item.response.messages.join("; ")}`
      : undefined;
  if (item.kind !== "FAILURE") return undefined;
  const { code, cell, file, line, message } = item.error;
  const place = line ? ` (${file ? `${file}:` : "line "}${line})` : "";
  return `${code}${cell ? ` in ${cell}` : ""}${place}: ${message}`;
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
  const where = (key: string, file: string) =>
    `${key} ${file} (${entry.file} case ${JSON.stringify(testCase.name)})`;
  if (testCase.request_file) {
    const label = where("request_file", testCase.request_file);
    return envelopeInput(readJsonFile(resolve(dirname(entry.path), testCase.request_file), label), label);
  }
  if (testCase.input_file) {
    const path = resolve(dirname(entry.path), testCase.input_file);
    return {
      payload: readJsonFile(
        path,
        `input_file ${testCase.input_file} (${entry.file} case ${JSON.stringify(testCase.name)})`,
      ),
    };
  }
  const input = testCase.request ?? testCase.input ?? {};
  return {
    payload: input.payload ?? {},
    method: input.method,
    path: input.path,
    params: input.params,
    headers: input.headers,
  };
}

/** A test file, or why it cannot be used: its blocking findings. */
function loadTests(path: string, load: { cwd: string; env: Env }): LoadedTests | string {
  const { file, issues } = loadTestFile(path, load);
  const blocking = issues.filter(isBlocking);
  if (blocking.length) return `it cannot be used until these are fixed:\n${formatIssueList(blocking)}`;
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

import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isNode, parseDocument } from "yaml";
import { findProjectFile, listTestFiles } from "../definition/files.js";
import type { Env } from "../definition/load.js";
import type { CoverageHits } from "../engine/coverage.js";
import type { Engine } from "../engine/engine.js";
import { BassError } from "../errors.js";
import { openProject, type Project } from "../project/open.js";
import { brokenFiles, formatBroken } from "../project/usable.js";
import { type CaseResult, type LoadedTests, runTests } from "../testing/run-tests.js";
import { type CaseSelection, caseFilter } from "../testing/select-cases.js";
import { applyUpdates, outputDiffers, updatedOutput } from "../testing/update-cases.js";
import { writeFileAtomic } from "../write-atomic.js";
import type { TestReporter } from "./choices.js";
import type { Output } from "./output.js";
import { reportCoverage } from "./test-coverage.js";
import { formatTestFile, formatTestReport } from "./test-report.js";

export interface TestCommandOptions extends CaseSelection {
  reporter: TestReporter;
  update: boolean;
  bail?: boolean | undefined;
  project?: string | undefined;
  cwd: string;
  env: Env;
  /** How the user runs bass, for the commands the report prints. */
  command?: string | undefined;
  /** Where a progress line may go while a long suite runs (a terminal), or undefined. */
  progress?: ((text: string) => void) | undefined;
  /** The process's engine (see guardCellRejections); default: the project's own. */
  engine?: Engine | undefined;
  /** `--pass-with-no-tests`: no test file is a pass (exit 0), not a usage error, while cases are being written. */
  passWithNoTests?: boolean | undefined;
  /** `--coverage`: the folder its files go to; `--coverage-threshold`: the least share of lines. */
  coverage?: { dir: string; threshold: number | undefined } | undefined;
}

/** `bass test [paths…]`: runs the cases of `*.test.yaml` files; exit 0 when all pass, 1 when one fails. */
export async function runTestCommand(
  paths: readonly string[],
  options: TestCommandOptions,
  output: Output,
): Promise<number> {
  const { project, files } = await openSuite(paths, options);
  if (files.length === 0) {
    // Jest's --passWithNoTests: a fresh import or init can go through CI before its cases exist.
    output.stderr(`no *.test.yaml files in ${where(paths, project.dir)}: nothing to run, and that passes\n`);
    return 0;
  }
  output.stderr(formatBroken(brokenFiles(project.definitions, project.issues)));
  const started = performance.now();
  const suite = { cwd: options.cwd, env: options.env, project, files };
  const reportOptions = { color: output.color, command: options.command, updated: 0, durationMs: 0 };
  let progressLine = "";
  const progress = (text: string) => {
    progressLine = text;
    options.progress?.(`\r\u001b[K${text}`);
  };
  const hits: CoverageHits | undefined = options.coverage ? {} : undefined;
  const { results, loaded, blocked } = await runTests({
    ...suite,
    coverage: hits,
    only: caseFilter(options),
    bail: options.bail,
    onCaseDone: (done, total) => progress(`${done}/${total} cases`),
    // People see each file as it finishes; json and junit are one document, written at the end.
    onFileDone:
      options.reporter === "text"
        ? (fileResults) => {
            options.progress?.("\r\u001b[K");
            output.stdout(formatTestFile(fileResults, reportOptions));
            options.progress?.(progressLine);
          }
        : undefined,
  });
  progress("");
  const updated = options.update
    ? await updateCases(loaded, results, async (only) => (await runTests({ ...suite, only })).results)
    : 0;
  // No case could run: the reasons below are all there is to report.
  if (results.length > 0 || blocked.length === 0) {
    output.stdout(
      formatTestReport(options.reporter, results, {
        ...reportOptions,
        durationMs: performance.now() - started,
        updated,
      }),
    );
  }
  const covered = hits ? coverageMet(project, hits, options, output) : true;

  // The cases that could run ran; the test files that could not are the user's to fix, as usage errors.
  for (const { file, why } of blocked) output.stderr(`bass: ${file}: ${why}\n`);
  if (blocked.length) return 2;
  return covered && allPassed(results, options.update) ? 0 : 1;
}

/** The project and the test files the command line names; throws for a path that is not there or no test file. */
async function openSuite(paths: readonly string[], options: TestCommandOptions) {
  for (const path of paths) {
    if (!existsSync(resolve(options.cwd, path)))
      throw new BassError("FILE_NOT_FOUND", `no such file or folder: ${path}`);
  }
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    // Test files given without --project: their project is found from the first one upwards, as validate does.
    projectDir: options.project ?? projectOfPath(paths[0], options.cwd),
    cache: true,
    engine: options.engine,
  });
  const files = listTestFiles(paths.length ? paths.map((path) => resolve(options.cwd, path)) : [project.dir]);
  if (files.length === 0 && !options.passWithNoTests)
    throw new BassError(
      "USAGE",
      `no *.test.yaml files in ${where(paths, project.dir)} (--pass-with-no-tests passes without them)`,
    );
  return { project, files };
}

/** Where the test files were looked for: the paths given, or the project's folder. */
function where(paths: readonly string[], dir: string): string {
  return paths.length ? paths.join(", ") : dir;
}

/** The coverage report `--coverage` asked for, and whether it meets `--coverage-threshold`. */
function coverageMet(
  project: Project,
  hits: CoverageHits,
  options: TestCommandOptions,
  output: Output,
): boolean {
  const asked = options.coverage ?? { dir: "coverage", threshold: undefined };
  return reportCoverage(
    project,
    hits,
    { ...asked, cwd: options.cwd, toStdout: options.reporter === "text" },
    output,
  );
}

/** Whether every case passed; after --update the outputs match, and a case fails on its other expectations only. */
function allPassed(results: readonly CaseResult[], updated: boolean): boolean {
  const fixed = (result: CaseResult) =>
    updated && result.differences.every((difference) => difference.path.startsWith("expect.output"));
  return results.every((result) => result.status === "passed" || fixed(result));
}

/**
 * `--update`: each case whose expected output differs from what it answered expects that from now on,
 * masked. Such a case runs once more, and a value the two runs answered differently (an id or time from a
 * live system) is written as a `$type` matcher, so the next run passes too. Only those cases' outputs are
 * rewritten, in place; a file with none is not touched. Returns how many cases changed.
 */
async function updateCases(
  loaded: readonly LoadedTests[],
  results: readonly CaseResult[],
  rerun: (only: (file: string, name: string) => boolean) => Promise<CaseResult[]>,
): Promise<number> {
  const changed = results.filter(outputDiffers);
  if (changed.length === 0) return 0;
  const key = (file: string, name: string) => `${file}\u0000${name}`;
  const wanted = new Set(changed.map((result) => key(result.file, result.name)));
  const again = new Map(
    (await rerun((file, name) => wanted.has(key(file, name)))).map((result) => [
      key(result.file, result.name),
      result,
    ]),
  );
  for (const entry of loaded) {
    const mine = changed.filter((result) => result.file === entry.file);
    if (mine.length === 0) continue;
    const text = readFileSync(entry.path, "utf8");
    const doc = parseDocument(text);
    const updates = mine.map((result) => {
      const index = entry.tests.cases.findIndex((testCase) => testCase.name === result.name);
      const old = doc.getIn(["cases", index, "expect", "output"]);
      const current = isNode(old) ? old.toJSON() : old;
      return {
        entry,
        index,
        output: updatedOutput(result, again.get(key(result.file, result.name)), current),
      };
    });
    const next = applyUpdates(text, updates);
    if (next !== text) await writeFileAtomic(entry.path, next);
  }
  return changed.length;
}

/** The folder of the project file found from `path`'s folder upwards, or undefined (the current folder's). */
function projectOfPath(path: string | undefined, cwd: string): string | undefined {
  if (path === undefined) return undefined;
  const full = resolve(cwd, path);
  const start = statSync(full).isDirectory() ? full : dirname(full);
  const file = findProjectFile(start);
  return file === undefined ? undefined : dirname(file);
}

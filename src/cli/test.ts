import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseDocument } from "yaml";
import { listTestFiles } from "../definition/files.js";
import type { Env } from "../definition/load.js";
import { BassError } from "../errors.js";
import { openProject } from "../project/open.js";
import { expectedOutput, outputOf } from "../testing/expectations.js";
import { type CaseResult, type LoadedTests, runTests } from "../testing/run-tests.js";
import { writeFileAtomic } from "../write-atomic.js";
import type { TestReporter } from "./choices.js";
import type { Output } from "./output.js";
import { formatTestReport } from "./test-report.js";

export interface TestCommandOptions {
  reporter: TestReporter;
  update: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
  /** Where a progress line may go while a long suite runs (a terminal), or undefined. */
  progress?: ((text: string) => void) | undefined;
}

/** `bass test [paths…]`: runs the cases of `*.test.yaml` files; exit 0 when all pass, 1 when one fails. */
export async function runTestCommand(
  paths: readonly string[],
  options: TestCommandOptions,
  output: Output,
): Promise<number> {
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    cache: true,
  });
  for (const path of paths) {
    if (!existsSync(resolve(options.cwd, path)))
      throw new BassError("FILE_NOT_FOUND", `no such file or folder: ${path}`);
  }
  const files = listTestFiles(paths.length ? paths.map((path) => resolve(options.cwd, path)) : [project.dir]);
  if (files.length === 0)
    throw new BassError("USAGE", `no *.test.yaml files in ${paths.length ? paths.join(", ") : project.dir}`);

  const started = performance.now();
  const { results, loaded } = await runTests({
    cwd: options.cwd,
    env: options.env,
    project,
    files,
    onCaseDone: (done, total) => options.progress?.(`\r${done}/${total} cases`),
  });
  options.progress?.("\r\u001b[K");
  if (options.update) await updateCases(loaded, results);
  output.stdout(
    formatTestReport(options.reporter, results, {
      color: output.color,
      durationMs: performance.now() - started,
      updated: options.update,
    }),
  );
  // After --update the outputs match; a case still fails on its other expectations.
  const fixed = (result: CaseResult) =>
    options.update && result.differences.every((difference) => difference.path.startsWith("expect.output"));
  return results.every((result) => result.status === "passed" || fixed(result)) ? 0 : 1;
}

/** `--update`: the actual output, masked, becomes each case's `expect.output`; comments and layout stay. */
async function updateCases(loaded: readonly LoadedTests[], results: readonly CaseResult[]): Promise<void> {
  for (const entry of loaded) {
    const doc = parseDocument(readFileSync(entry.path, "utf8"));
    entry.tests.cases.forEach((testCase, index) => {
      const result = results.find(
        (candidate) => candidate.file === entry.file && candidate.name === testCase.name,
      );
      const output = result?.record && outputOf(result.record);
      if (!output) return;
      const path = ["cases", index, "expect", "output"];
      const node = doc.createNode(expectedOutput(output));
      // The comments around the old expectation stay with the new one.
      const old = doc.getIn(path, true) as
        | { comment?: string | null; commentBefore?: string | null }
        | undefined;
      if (old?.comment) node.comment = old.comment;
      if (old?.commentBefore) node.commentBefore = old.commentBefore;
      doc.setIn(path, node);
    });
    await writeFileAtomic(entry.path, doc.toString());
  }
}

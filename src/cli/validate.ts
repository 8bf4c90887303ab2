import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import {
  findProjectFile,
  isDefinitionFile,
  isTestFile,
  listDefinitionFiles,
  listTestFiles,
  projectFileName,
} from "../definition/files.js";
import { hasFailures, type Issue } from "../definition/issue.js";
import { collectIssues, createReferenceContext, lintProjectFile } from "../definition/lint/lint.js";
import { lintPaths, type PathLint } from "../definition/lint/lint-paths.js";
import { type Env, type LoadedFile, loadFile, resolveProject } from "../definition/load.js";
import type { ProjectConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { loadPython, pythonRuntime } from "../python/runtime.js";
import { suggestion } from "../suggest.js";
import { loadTestFile } from "../testing/lint-test-file.js";
import type { TestFile } from "../testing/test-file.js";
import { formatIssueReport, type IssueFormat } from "./formats/index.js";
import type { Output } from "./output.js";

export interface ValidateOptions {
  format: IssueFormat;
  strict: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
  version: string;
}

/** What one validate reviews: the project file (when it is under review) and the files to lint. */
interface Reviewed {
  config: LoadedFile<ProjectConfig> | undefined;
  /** The project file is under review when the whole project is, or when it is named. */
  configReviewed: boolean;
  configIssues: Issue[];
  definitionFiles: string[];
  testFiles: string[];
}

/** The whole project: its file, every definition and every test file. */
function wholeProject(options: ValidateOptions): Reviewed {
  const project = resolveProject({ cwd: options.cwd, env: options.env, projectDir: options.project });
  return {
    config: project.config,
    configReviewed: true,
    configIssues: [...project.issues, ...lintProjectFile(project.config)],
    definitionFiles: project.definitionFiles,
    testFiles: listTestFiles([project.dir]),
  };
}

/** The files and folders named, read with the project file they belong to. */
function namedFiles(paths: readonly string[], options: ValidateOptions): Reviewed {
  const named = expandPaths(paths, options.cwd);
  const start = options.project
    ? resolve(options.cwd, options.project)
    : dirname(named.definitions[0] ?? options.cwd);
  const configFile = named.config ?? findProjectFile(start);
  const load = { cwd: options.cwd, env: options.env };
  const config = configFile ? loadFile<ProjectConfig>(configFile, "project", load) : undefined;
  const configReviewed = named.config !== undefined;
  return {
    config,
    configReviewed,
    configIssues: config && configReviewed ? lintProjectFile(config) : [],
    definitionFiles: named.definitions,
    testFiles: named.tests,
  };
}

/** `bass validate [paths…]`: the project, or the files and folders given; exit 1 on an error (any finding with --strict). */
export async function runValidate(
  paths: readonly string[],
  options: ValidateOptions,
  output: Output,
): Promise<number> {
  const load = { cwd: options.cwd, env: options.env };
  const { config, configReviewed, configIssues, definitionFiles, testFiles } =
    paths.length === 0 ? wholeProject(options) : namedFiles(paths, options);
  // Tests of definitions are checked too: their schema and the rules across their cases.
  const tests = testFiles.map((path) => loadTestFile(path, load));
  configIssues.push(...tests.flatMap((test) => test.issues));

  const lintOptions = { ...load, context: createReferenceContext(config) };
  let lints = lintPaths(definitionFiles, lintOptions);
  // A Python cell bass cannot vouch for without CPython (a syntax error among them) is read by CPython:
  // the runtime loads then, and the definitions that have such cells are linted again with it.
  if (!pythonRuntime() && lints.some((lint) => lint.needsPython)) {
    await loadPython();
    lints = lints.map((lint, index) =>
      lint.needsPython ? (lintPaths([definitionFiles[index] as string], lintOptions)[0] as PathLint) : lint,
    );
  }
  // Every definition of the project was read: a test file's integration must be one of them.
  if (paths.length === 0) {
    const names = lints.flatMap((lint) => (lint.name === undefined ? [] : [lint.name]));
    configIssues.push(...tests.flatMap((test) => unknownIntegration(test.file, names)));
  }
  const issues = collectIssues(configIssues, lints, { whole: paths.length === 0 });
  const sources = new Map(
    lints.flatMap((lint) => (lint.text === undefined ? [] : [[lint.file, lint.text] as const])),
  );
  if (config) sources.set(config.file, config.source.text);
  for (const { file } of tests) sources.set(file.file, file.source.text);
  output.stdout(
    formatIssueReport(options.format, issues, {
      sources,
      color: output.color,
      toolVersion: options.version,
      strict: options.strict,
      filesChecked: [
        ...(config && configReviewed ? [config.file] : []),
        ...lints.map((lint) => lint.file),
        ...tests.map((test) => test.file.file),
      ],
    }),
  );
  return hasFailures(issues, options.strict) ? 1 : 0;
}

/** A test file whose `integration` names none of the project's, as a finding at that key. */
function unknownIntegration(file: LoadedFile<TestFile>, names: readonly string[]): Issue[] {
  const integration = (file.source.value as { integration?: unknown } | undefined)?.integration;
  if (typeof integration !== "string" || names.includes(integration)) return [];
  return [
    {
      file: file.file,
      ...file.source.locate(["integration"]),
      severity: "error",
      rule: "unknown-integration",
      message: `no integration named ${JSON.stringify(integration)} in the project${suggestion(integration, names)}`,
    },
  ];
}

/** Definition and test files under the paths given, and the project file if one of them is it. */
function expandPaths(
  paths: readonly string[],
  cwd: string,
): { definitions: string[]; tests: string[]; config: string | undefined } {
  let config: string | undefined;
  const definitions = new Set<string>();
  const tests = new Set<string>();
  for (const path of paths) {
    const full = resolve(cwd, path);
    if (!existsSync(full)) throw new BassError("FILE_NOT_FOUND", `no such file or folder: ${path}`);
    if (basename(full) === projectFileName) config = full;
    else if (statSync(full).isDirectory()) addFolder(full, path, definitions, tests);
    else if (isDefinitionFile(full)) definitions.add(full);
    else if (isTestFile(full)) tests.add(full);
    else throw new BassError("USAGE", `${path} is not a definition or test file (.yaml or .yml)`);
  }
  return { definitions: [...definitions].sort(), tests: [...tests].sort(), config };
}

/** Adds the definition and test files under the folder `full` (given as `path`); a folder of neither is a usage error. */
function addFolder(full: string, path: string, definitions: Set<string>, tests: Set<string>): void {
  const { files } = listDefinitionFiles(full, ["."]);
  for (const file of listTestFiles([full])) tests.add(file);
  if (files.length === 0 && tests.size === 0) {
    throw new BassError(
      "USAGE",
      `${JSON.stringify(path)} holds no definition file (.yaml or .yml, not .test.yaml)`,
    );
  }
  for (const file of files) definitions.add(file);
}

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import type { ColorSupportLevel } from "chalk";
import { onTestFinished } from "vitest";
import type { AdapterResolver } from "../src/adapters/adapter.js";
import { echoAdapter } from "../src/adapters/echo.js";
import { createMockAdapter, type MockAnswers } from "../src/adapters/mock.js";
import { createOutput, type Output, type Writers } from "../src/cli/output.js";
import type { Issue } from "../src/definition/issue.js";
import type { Engine } from "../src/engine/engine.js";
import { type RunResult, type StartedRun, startIntegration } from "../src/engine/run.js";
import type { RunFileKeeper } from "../src/engine/run-files.js";
import type { RunInput } from "../src/engine/types.js";
import { openProjectFiles } from "../src/project/open-files.js";
import { assertUsable } from "../src/project/usable.js";

/**
 * A "billion laughs" definition: eight levels of ten aliases each, 10^8 strings expanded. Its first alias
 * is on line 3, column 10.
 */
export function yamlAliasBomb(): string {
  const lines = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
  for (let level = 1; level < 8; level++)
    lines.push(
      `a${level}: &a${level} [${Array(10)
        .fill(`*a${level - 1}`)
        .join(", ")}]`,
    );
  return `${lines.join("\n")}\n`;
}

/** A temporary folder holding `files` (path → text), removed when the test ends. */
export function createTempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "bass-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** bass's own checkout: the package the tests run. */
export const repoRoot = join(import.meta.dirname, "..");

/** The sample project of the repository. */
export const samplesDir = join(repoRoot, "samples");

/**
 * A copy of the samples in `dir` (a new temporary folder by default), without the `.bass` folder a run of
 * them in the checkout left (history, state, caches): a test starts from the samples as they are shipped.
 */
export function copySamples(dir: string = createTempDir()): string {
  cpSync(samplesDir, dir, {
    recursive: true,
    filter: (path) => !relative(samplesDir, path).split(sep).includes(".bass"),
  });
  return dir;
}

/** The project file most lint tests use: one http system and one echo system. */
export const defaultProjectFile = `systems:
  core:
    adapter: http
    base_url: \${env:CORE_URL:-mockcore:}
  transform:
    adapter: echo
`;

export interface LintFixtureOptions {
  project?: string;
  env?: Record<string, string>;
  more?: Record<string, string>;
}

/** Lints one definition (as `integrations/a.yaml`) in a project of its own. */
export function lintDefinition(definition: string, options: LintFixtureOptions = {}): Issue[] {
  const dir = createTempDir({
    "bass.config.yaml": options.project ?? defaultProjectFile,
    "integrations/a.yaml": definition,
    ...options.more,
  });
  return openProjectFiles({ cwd: dir, env: options.env ?? {}, requestSchemas: true }).project.issues;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process, capturing what it prints; `stdin` is what `--input -` reads. */
export async function runCli(
  argv: readonly string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    colorLevel?: ColorSupportLevel;
    stdin?: string;
    /** The width of the terminal stdout stands for; without it, stdout is not a terminal. */
    columns?: number;
  },
): Promise<CliResult> {
  const { main } = await import("../src/cli/main.js");
  const captured = captureWriters(options.colorLevel ?? 0, options.columns);
  const readStdin = async () => options.stdin ?? "";
  const code = await main(argv, {
    cwd: options.cwd,
    env: options.env ?? { NO_COLOR: "1" },
    write: captured.write,
    readStdin,
  });
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

interface Captured {
  stdout(): string;
  stderr(): string;
}

/** Writers that keep what is written to stdout and stderr as text. */
function captureWriters(colorLevel: ColorSupportLevel = 0, columns?: number): Captured & { write: Writers } {
  let stdout = "";
  let stderr = "";
  const write: Writers = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    colorLevel,
    columns,
  };
  return { write, stdout: () => stdout, stderr: () => stderr };
}

/** An Output without colour that keeps what is printed, for commands run in-process. */
export function captureOutput(): Captured & { output: Output } {
  const { write, ...captured } = captureWriters();
  return { output: createOutput({ color: false, write }), ...captured };
}

/** A promise to hand a long-running command as `stopped`, and the function that resolves it. */
export function stopSignal(): { stopped: Promise<void>; stop: () => void } {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  return { stopped, stop };
}

export interface RunDefinitionOptions {
  /** `--mock` answers by formula variable. */
  mocks?: MockAnswers;
  project?: string;
  /** Other files of the project, by path (shared modules). */
  projectFiles?: Record<string, string>;
  env?: Record<string, string>;
  cellTimeoutMs?: number;
  runTimeoutMs?: number;
  adapters?: AdapterResolver;
  files?: RunFileKeeper;
  /** The engine whose rejections a test watches (see guardCellRejections); default: the project's own. */
  engine?: Engine;
}

/** Loads, validates (refusing error findings, as `bass run` does), compiles and runs one definition. */
export async function runDefinition(
  definition: string,
  input: RunInput,
  options: RunDefinitionOptions = {},
): Promise<RunResult> {
  return startDefinition(definition, input, options).completion;
}

/** As `runDefinition`, but returns at once with the started run (SPEC §4.9). */
export function startDefinition(
  definition: string,
  input: RunInput,
  options: RunDefinitionOptions = {},
): StartedRun {
  const dir = createTempDir({
    "bass.config.yaml": options.project ?? defaultProjectFile,
    "integrations/a.yaml": definition,
    ...options.projectFiles,
  });
  const { project } = openProjectFiles({ cwd: dir, env: options.env ?? {}, engine: options.engine });
  assertUsable(project.issues, "the test definition");
  const [loaded] = project.definitions;
  if (!loaded) throw new Error("no definition loaded");
  const mock = createMockAdapter(options.mocks ?? {}, "mocks");
  return startIntegration(project.compile(loaded), input, {
    cellTimeoutMs: options.cellTimeoutMs ?? project.limits.cellTimeoutMs,
    runTimeoutMs: options.runTimeoutMs ?? project.limits.runTimeoutMs,
    outputBytes: project.limits.outputBytes,
    adapters: options.adapters ?? ((system) => (system === "transform" ? echoAdapter : mock)),
    trigger: "test",
    secrets: project.secrets,
    files: options.files,
  });
}

/** A port nothing listens on now, on 127.0.0.1: for a server a test starts where the docs say 3000. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import type { ParseError } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import type { Adapter, AdapterResolver } from "../adapters/adapter.js";
import { echoAdapter } from "../adapters/echo.js";
import { checkMockAnswers, createMockAdapter, type MockAnswers } from "../adapters/mock.js";
import { createReferenceContext, lintDefinition, lintProjectFile } from "../definition/lint/lint.js";
import { type Env, type LoadedDefinition, loadFile, resolveProject } from "../definition/load.js";
import type { Definition, SystemConfig } from "../definition/types.js";
import { assertUsable } from "../definition/usable.js";
import { compileIntegration } from "../engine/compile.js";
import { createHistoryStore, resolveHistoryOptions } from "../engine/history.js";
import { type RunInput, startIntegration } from "../engine/run.js";
import { BassError } from "../errors.js";
import type { Output } from "./output.js";
import { renderRecord } from "./render-record.js";

export interface RunCommandOptions {
  input: string;
  inputEnvelope: boolean;
  mock?: string | undefined;
  json: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
  readStdin: () => Promise<string>;
}

/** `bass run <name> --input <file|->`: runs one integration, prints its output and masked history; exit 0 / 1. */
export async function runRun(name: string, options: RunCommandOptions, output: Output): Promise<number> {
  const load = { cwd: options.cwd, env: options.env };
  const project = resolveProject({ ...load, projectDir: options.project });
  const definition = findDefinition(name, project.definitionFiles, load);
  const context = createReferenceContext(project.config);
  const issues = [...lintProjectFile(project.config), ...lintDefinition(definition, context).issues];
  assertUsable(issues, `integration ${name}`);
  for (const warning of issues)
    output.stderr(`warning: ${warning.file}:${warning.line}:${warning.column}  ${warning.message}\n`);

  const input = await parseInput(await readInput(options), options.input, options.inputEnvelope);
  const config = project.config.value;
  const adapters = options.mock
    ? mockAdapters(options.mock, options.cwd)
    : systemAdapters(config.systems ?? {});
  const integration = compileIntegration(definition);
  for (const request of integration.serviceRequests) adapters(request.system); // an adapter bass cannot call stops here, before the run
  const history = createHistoryStore(resolveHistoryOptions(project.dir, config.history));
  const run = startIntegration(integration, input, {
    adapters,
    trigger: "cli",
    cellTimeoutMs: config.limits?.cell_timeout_ms ?? 1000,
    runTimeoutMs: config.limits?.run_timeout_ms ?? 30000,
    secrets: [...project.config.secrets, ...definition.secrets],
  });
  if (run.started) {
    // An async run's record exists from its start (SPEC §4.9): on disk before the run can end.
    history.write(run.started);
    await history.flush();
  }
  const result = await run.completion;
  history.write(result.record);
  await history.flush();

  // An async run answers 202 at once (SPEC §4.9); bass run still waits for it, to show and store its record.
  const recorded = result.record.items.findLast((item) => item.kind === "OUTPUT");
  const shownOutput = run.accepted ?? (recorded?.kind === "OUTPUT" ? recorded.data : undefined);
  if (options.json) {
    output.stdout(
      `${JSON.stringify({ run_id: result.runId, status: result.status, output: shownOutput, history: result.record }, null, 2)}\n`,
    );
  } else {
    output.stdout(renderRecord(result.record, output.paint));
  }
  return result.status === "success" ? 0 : 1;
}

/** The definition named `name`: its file is tried first by name, then every file of the project. */
function findDefinition(
  name: string,
  files: readonly string[],
  load: { cwd: string; env: Env },
): LoadedDefinition {
  const byFileName = files.filter((file) => basename(file, extname(file)) === name);
  for (const file of [...byFileName, ...files.filter((file) => !byFileName.includes(file))]) {
    const loaded = loadFile<Definition>(file, "definition", load);
    if (loaded.value?.name === name) return loaded;
  }
  throw new BassError(
    "INTEGRATION_NOT_FOUND",
    `no integration named ${name} in the project (bass validate lists its files)`,
  );
}

async function readInput(options: RunCommandOptions): Promise<string> {
  if (options.input === "-") return options.readStdin();
  try {
    return readFileSync(resolve(options.cwd, options.input), "utf8");
  } catch (error) {
    throw new BassError(
      "FILE_NOT_FOUND",
      `cannot read the input file ${options.input}: ${(error as Error).message}`,
    );
  }
}

/** The input file: the request body, or with --input-envelope `{ payload, method, path, params, headers }`. */
async function parseInput(text: string, file: string, envelope: boolean): Promise<RunInput> {
  const value = await parseData(text, file === "-" ? "stdin" : file);
  if (!envelope) return { payload: value };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BassError(
      "INPUT_INVALID",
      `${file}: an input envelope is an object { payload, method, path, params, headers }`,
    );
  }
  const { payload, method, path, params, headers, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw new BassError(
      "INPUT_INVALID",
      `${file}: unknown envelope key ${JSON.stringify(unknown[0])}; an envelope has payload, method, path, params, headers`,
    );
  const objectOf = (key: string, item: unknown) => {
    if (item === undefined) return undefined;
    if (item === null || typeof item !== "object" || Array.isArray(item))
      throw new BassError("INPUT_INVALID", `${file}: envelope ${key} must be an object`);
    return item as Record<string, string>;
  };
  if (method !== undefined && typeof method !== "string")
    throw new BassError("INPUT_INVALID", `${file}: envelope method must be a string such as "GET"`);
  return {
    payload: payload ?? {},
    method,
    path: objectOf("path", path),
    params: objectOf("params", params),
    headers: objectOf("headers", headers),
  };
}

/** JSON; a syntax error names the file, line and column, and never echoes the input (it may hold secrets). */
async function parseData(text: string, file: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse on Node 20 often gives no position; jsonc-parser, in strict JSON mode, finds it.
    const { parse: parseJsonc, printParseErrorCode } = await import("jsonc-parser");
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true });
    const [first] = errors;
    const offset = first?.offset ?? text.length;
    const problem = first
      ? printParseErrorCode(first.error)
          .replace(/(?<=[a-z])(?=[A-Z])/g, " ")
          .toLowerCase()
      : "it is empty";
    throw new BassError("INPUT_INVALID", `${file}${lineAndColumn(text, offset)}: not valid JSON: ${problem}`);
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `:${line}:${offset - before.lastIndexOf("\n")}`;
}

function mockAdapters(file: string, cwd: string): AdapterResolver {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read the mock file ${file}: ${(error as Error).message}`);
  }
  // YAML reads JSON too.
  let answers: unknown;
  try {
    answers = parseYaml(text);
  } catch (error) {
    throw new BassError("INPUT_INVALID", `${file}: ${(error as Error).message}`);
  }
  const problem = checkMockAnswers(answers);
  if (problem) throw new BassError("INPUT_INVALID", `${file}: ${problem}`);
  const adapter = createMockAdapter(answers as MockAnswers, file);
  return () => adapter;
}

/** The adapter of each system as the project file configures it. */
function systemAdapters(systems: Readonly<Record<string, SystemConfig>>): AdapterResolver {
  const adapters = new Map<string, Adapter>();
  for (const [name, system] of Object.entries(systems)) {
    if (system.adapter === "echo") adapters.set(name, echoAdapter);
  }
  return (system) => {
    const adapter = adapters.get(system);
    if (adapter) return adapter;
    const kind = systems[system]?.adapter ?? "unknown";
    throw new BassError(
      "ADAPTER_UNAVAILABLE",
      `system ${system} uses the ${kind} adapter, which this version of bass cannot call yet; run with --mock FILE`,
    );
  };
}

import { basename, extname } from "node:path";
import { createReferenceContext, lintDefinition, lintProjectFile } from "../definition/lint/lint.js";
import {
  type Env,
  type LoadedDefinition,
  loadFile,
  type ResolvedProject,
  resolveProject,
} from "../definition/load.js";
import type { Definition, ProjectConfig } from "../definition/types.js";
import { assertUsable } from "../definition/usable.js";
import { type CompiledIntegration, compileIntegration } from "../engine/compile.js";
import { createHistoryStore, resolveHistoryOptions } from "../engine/history.js";
import { type RunInput, startIntegration } from "../engine/run.js";
import { BassError } from "../errors.js";
import type { Output } from "./output.js";
import { renderRecord } from "./render-record.js";
import { createRunAdapters, type RunAdapters } from "./run-adapters.js";
import { readRunInput } from "./run-input.js";

export interface RunCommandOptions {
  input: string;
  inputEnvelope: boolean;
  mock?: string | undefined;
  record?: string | undefined;
  replay?: string | undefined;
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
  // A run does not use request_schema, which only serve checks bodies against.
  const context = createReferenceContext(project.config, { requestSchemas: false });
  const issues = [...lintProjectFile(project.config), ...lintDefinition(definition, context).issues];
  assertUsable(issues, `integration ${name}`);
  for (const warning of issues)
    output.stderr(`warning: ${warning.file}:${warning.line}:${warning.column}  ${warning.message}\n`);

  const input = await readRunInput(options);
  const config = project.config.value;
  const integration = compileIntegration(definition);
  const secrets = [...project.config.secrets, ...definition.secrets];
  const adapters = await createRunAdapters({ ...options, projectDir: project.dir, config, secrets });
  try {
    return await runWith(
      integration,
      input,
      adapters,
      { ...options, name, config, resolved: project, secrets },
      output,
    );
  } finally {
    await adapters.close();
  }
}

async function runWith(
  integration: CompiledIntegration,
  input: RunInput,
  adapters: RunAdapters,
  context: RunCommandOptions & {
    name: string;
    config: ProjectConfig;
    resolved: ResolvedProject;
    secrets: readonly string[];
  },
  output: Output,
): Promise<number> {
  const { config, resolved: project } = context;
  // An adapter bass cannot call stops the run here, before it starts.
  for (const request of integration.serviceRequests) adapters.resolve(request.system);
  const history = createHistoryStore(resolveHistoryOptions(project.dir, config.history, context.secrets));
  const run = startIntegration(integration, input, {
    adapters: adapters.resolve,
    trigger: "cli",
    cellTimeoutMs: config.limits?.cell_timeout_ms ?? 1000,
    runTimeoutMs: config.limits?.run_timeout_ms ?? 30000,
    secrets: context.secrets,
  });
  if (run.started) {
    // An async run's record exists from its start (SPEC §4.9): on disk before the run can end.
    history.write(run.started);
    await history.flush();
  }
  const result = await run.completion;
  history.write(result.record);
  await adapters.save(result, integration.name);

  // An async run answers 202 at once (SPEC §4.9); bass run still waits for it, to show and store its record.
  const recorded = result.record.items.findLast((item) => item.kind === "OUTPUT");
  const shownOutput = run.accepted ?? (recorded?.kind === "OUTPUT" ? recorded.data : undefined);
  if (context.json) {
    output.stdout(
      `${JSON.stringify({ run_id: result.runId, status: result.status, output: shownOutput, history: result.record }, null, 2)}\n`,
    );
  } else {
    // The tree previews every payload; the answer itself is printed whole beneath it.
    const answer = shownOutput
      ? `\n${output.paint.bold(`output ${shownOutput.status}`)}\n${JSON.stringify(shownOutput.payload, null, 2)}\n`
      : "";
    output.stdout(renderRecord(result.record, output.paint) + answer);
  }
  // The run is shown first: its systems were called, whether or not its record could be kept.
  await history.flush();
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

import { resolve } from "node:path";
import { mayCall } from "../definition/cells.js";
import type { Env, LoadedDefinition } from "../definition/load.js";
import type { CompiledIntegration } from "../engine/compile.js";
import type { Engine } from "../engine/engine.js";
import { createScrubber } from "../engine/masks.js";
import type { RunOptions } from "../engine/run.js";
import { copyOf } from "../engine/snapshot.js";
import type { OutputData, RunInput, RunRecord } from "../engine/types.js";
import type { VaultStore } from "../engine/vault.js";
import { BassError } from "../errors.js";
import type { HistoryStore } from "../history/store.js";
import { pythonTask } from "../pool/python-tasks.js";
import {
  type AdapterChoice,
  createProjectAdapters,
  readCassette,
  readMockFile,
} from "../project/adapters.js";
import { openProjectCache, type ProjectCache } from "../project/cache.js";
import { openHistory, openProject, type Project } from "../project/open.js";
import { assertUsable, formatWarnings, issuesOf } from "../project/usable.js";
import { projectVaults } from "../project/vaults.js";
import type { RunStarted } from "../runner/messages.js";
import { createTaskPlace } from "../runner/run-task.js";
import { type PythonTask, type Runner, recordOf } from "../runner/runner.js";
import { createThreadRunner } from "../runner/thread-runner.js";
import type { Output } from "./output.js";
import { renderItemData, renderRecord } from "./render-record.js";
import { type ReadInputOptions, readRunInput } from "./run-input.js";
import { createRunRecording, type RunRecording } from "./run-record.js";
import { withWaitingLine } from "./waiting.js";

export interface RunCommandOptions extends Omit<ReadInputOptions, "cwd" | "readStdin"> {
  /** The process's engine (see guardCellRejections); default: the project's own. */
  engine?: Engine | undefined;
  mock?: string | undefined;
  record?: string | undefined;
  replay?: string | undefined;
  json: boolean;
  /** Every history item's masked data as YAML under the tree. */
  verbose?: boolean | undefined;
  /** Where a line may say what a run waits on (a terminal's stderr), or undefined. */
  progress?: ((text: string) => void) | undefined;
  /** Run in a worker thread with the memory limit (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host). */
  isolate?: boolean | undefined;
  project?: string | undefined;
  cwd: string;
  env: Env;
  readStdin: () => Promise<string>;
}

/** `bass run <name> --input <file|->`: runs one integration, prints its output and masked history; exit 0 / 1. */
export async function runRun(name: string, options: RunCommandOptions, output: Output): Promise<number> {
  let project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    definitions: { name },
    cache: true,
    // Python cells run in a worker thread (runIsolated), which loads the runtime itself.
    pythonHere: false,
    engine: options.engine,
  });
  let definition = project.definitions[0] as LoadedDefinition;
  assertRunnable(project, definition, output);
  // An integration that calls others needs them loaded too.
  if (mayCall(definition.value, "callint")) {
    project = await openProject({
      cwd: options.cwd,
      env: options.env,
      projectDir: options.project,
      cache: true,
      pythonHere: false,
      engine: options.engine,
    });
    definition = project.definitions.find((loaded) => loaded.value.name === name) as LoadedDefinition;
  }
  const { input, warnings } = await readRunInput(options);
  for (const warning of warnings) output.stderr(`warning: ${warning}\n`);
  const choice = await adapterChoice(options, openProjectCache(project.dir));
  return runLoaded(project, definition, input, { ...options, choice, cause: { trigger: "cli" } }, output);
}

/** Why a run runs: `bass run`, or `bass history rerun` of an earlier run. */
export type RunCause = Pick<RunOptions, "trigger" | "rerunOf">;

/** How `runLoaded` runs and shows a run: `bass run`'s own options, and what it has worked out. */
export type LoadedRunOptions = Pick<
  RunCommandOptions,
  "json" | "verbose" | "progress" | "isolate" | "record" | "cwd" | "env"
> & { choice: AdapterChoice; cause: RunCause };

/**
 * Throws for the definition's blocking findings and those of the project file, and prints their warnings;
 * another definition's findings are its own.
 */
export function assertRunnable(project: Project, definition: LoadedDefinition, output: Output): void {
  const own = issuesOf(project.issues, [project.file.file, definition.file]);
  assertUsable(own, `integration ${definition.value.name}`);
  output.stderr(formatWarnings(own));
}

/**
 * Runs one loaded integration of the project, found runnable (`assertRunnable`), with `input`, answered as
 * `options.choice` says, and prints it; exit 0 / 1.
 */
export async function runLoaded(
  project: Project,
  definition: LoadedDefinition,
  input: RunInput,
  options: LoadedRunOptions,
  output: Output,
): Promise<number> {
  const name = definition.value.name;
  const { choice, cause } = options;
  const history = openHistory(project);
  const vaults = projectVaults(project, options.env);
  // Python cells, its own or its callint children's, run in a worker thread: their calls go through this
  // one, whose event loop stays free.
  const python = pythonTask(definition.value, project);
  const prepared =
    options.isolate || python
      ? await isolatedRunner(project, { history, vaults, choice, python, options })
      : await threadRunner(project, project.compile(definition), { vaults, choice, options });
  const { runner, recording } = prepared;
  try {
    let accepted: OutputData | undefined;
    // An async run's record exists from its start (`run_async`, docs/reference.md#top-level): on disk
    // before the run goes on.
    const onStarted = (started: RunStarted) => {
      accepted = started.accepted;
      history.writeLine(started.runId, started.startedLine);
      return history.flush();
    };
    const task = { version: 1, integration: name, input, ...cause, choice, returnRecord: true };
    const result = await runner.run({ ...task, mockcoreUrl: prepared.mockcoreUrl }, onStarted, python);
    for (const child of result.childRecords ?? []) history.writeLine(child.runId, child.line);
    history.writeLine(result.runId, result.recordLine);
    const scrub = createScrubber([...(result.maskedValues ?? []), ...project.secrets]);
    await recording?.save((value) => scrub(copyOf(value)), name);
    // The run is shown first: its systems were called, whether or not its record could be kept.
    // From a worker the start may come after the end, which says it too.
    await printRun(
      recordOf(result),
      accepted ?? result.accepted,
      { json: options.json, verbose: options.verbose ?? false },
      output,
    );
    await history.flush();
    return result.status === "success" ? 0 : 1;
  } finally {
    await runner.close();
    await prepared.close();
  }
}

/** A runner for `bass run`, with what it started for it (closed after the run) and where a run records. */
interface PreparedRunner {
  runner: Runner;
  /** The embedded mock core of this thread, for a worker's live run. */
  mockcoreUrl: string | undefined;
  recording: RunRecording | undefined;
  close(): Promise<void>;
}

/** The run on this thread, its systems started here and checked before it runs; `--record` keeps its calls. */
async function threadRunner(
  project: Project,
  integration: CompiledIntegration,
  { vaults, choice, options }: { vaults: VaultStore; choice: AdapterChoice; options: LoadedRunOptions },
): Promise<PreparedRunner> {
  const adapters = createProjectAdapters(project);
  try {
    const resolved = withWaitingLine(await adapters.resolverFor(choice), options.progress);
    // An adapter bass cannot call stops the run here, before it starts.
    for (const request of integration.serviceRequests) resolved(request.system);
    const recording = options.record ? createRunRecording(resolved, options.record, options.cwd) : undefined;
    const resolve = recording?.resolve ?? resolved;
    const runner = createThreadRunner(createTaskPlace(project, { resolverFor: () => resolve, vaults }));
    return { runner, mockcoreUrl: undefined, recording, close: () => adapters.close() };
  } catch (error) {
    await adapters.close();
    throw error;
  }
}

/**
 * `--isolate`, and a run with Python cells: the run in a worker thread with the heap limit, as serve runs
 * it; a run that outgrows it fails (a worker_died record), and bass goes on to say so.
 */
async function isolatedRunner(
  project: Project,
  where: {
    history: HistoryStore;
    vaults: VaultStore;
    choice: AdapterChoice;
    python: PythonTask | undefined;
    options: LoadedRunOptions;
  },
): Promise<PreparedRunner> {
  const { history, vaults, choice, python, options } = where;
  if (options.record)
    throw new BassError(
      "USAGE",
      `--record cannot be used with ${python ? "an integration that may run Python cells, which runs in a worker thread" : "--isolate"}`,
    );
  const { createRunPool } = await import("../pool/run-pool.js");
  const { createRemoteHandler } = await import("../pool/remote-handler.js");
  // Python cells' calladapter and callint are made here; a live run's worker uses this thread's mock core.
  const adapters = python?.remoteCalls ? createProjectAdapters(project) : undefined;
  const remote =
    adapters &&
    createRemoteHandler({
      current: () => ({ project, adapters, vaults }),
      keep: (record) => history.write(record),
      waitForChildren: true,
    });
  if (adapters && choice.kind === "live") await adapters.resolverFor(choice);
  const mockcoreUrl = await adapters?.mockcoreUrl();
  const runner = createRunPool({ project, cwd: options.cwd, env: options.env, workers: 1, remote });
  return { runner, mockcoreUrl, recording: undefined, close: async () => adapters?.close() };
}

/** `--mock FILE`, `--replay FILE`, or the project's systems. */
async function adapterChoice(options: RunCommandOptions, cache: ProjectCache): Promise<AdapterChoice> {
  if (options.mock && options.replay)
    throw new BassError("USAGE", "--mock and --replay cannot be used together");
  if (options.mock === "-" && options.input === "-")
    throw new BassError(
      "USAGE",
      "--input and --mock cannot both read standard input; give one of them a file",
    );
  if (options.mock) {
    // `-` reads the answers from standard input, as --input does.
    const text = options.mock === "-" ? await options.readStdin() : undefined;
    const label = options.mock === "-" ? "stdin" : options.mock;
    return {
      kind: "mock",
      answers: await readMockFile(resolve(options.cwd, options.mock), label, cache, text),
      source: label,
    };
  }
  if (options.replay)
    return {
      kind: "cassette",
      cassette: await readCassette(resolve(options.cwd, options.replay), options.replay, cache),
      source: options.replay,
    };
  return { kind: "live" };
}

/** How a run is printed: `--json`, `--verbose`. */
interface Show {
  json: boolean;
  verbose: boolean;
}

/**
 * Prints a run: its record as a tree (with `--verbose` every item's data under it) and its answer whole,
 * or with `--json` all of it as JSON.
 */
async function printRun(
  record: RunRecord,
  accepted: OutputData | undefined,
  { json, verbose }: Show,
  output: Output,
): Promise<void> {
  // An async run answers 202 at once (docs/behaviour.md#bass-serve); bass run still waits for it, to show and store its record.
  const recorded = record.items.findLast((item) => item.kind === "OUTPUT");
  const shownOutput = accepted ?? (recorded?.kind === "OUTPUT" ? recorded.data : undefined);
  if (json) {
    output.stdout(
      `${JSON.stringify({ run_id: record.id, status: record.status, output: shownOutput, history: record }, null, 2)}\n`,
    );
    return;
  }
  // The tree previews every payload; the answer itself is printed whole beneath it.
  const answer = shownOutput
    ? `\n${output.paint.bold(`output ${shownOutput.status}`)}\n${JSON.stringify(shownOutput.payload, null, 2)}\n`
    : "";
  const items = verbose ? await renderItemData(record, output.paint) : "";
  output.stdout(renderRecord(record, output.paint, output.columns) + items + answer);
}

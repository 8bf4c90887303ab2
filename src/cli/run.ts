import { resolve } from "node:path";
import type { AdapterResolver } from "../adapters/adapter.js";
import type { Env, LoadedDefinition } from "../definition/load.js";
import type { CompiledIntegration } from "../engine/compile.js";
import { type RunInput, startIntegration } from "../engine/run.js";
import { BassError } from "../errors.js";
import {
  type AdapterChoice,
  createProjectAdapters,
  readCassette,
  readMockFile,
} from "../project/adapters.js";
import { openProjectCache, type ProjectCache } from "../project/cache.js";
import { openHistory, openProject, type Project } from "../project/open.js";
import { assertUsable, formatWarnings } from "../project/usable.js";
import type { Output } from "./output.js";
import { renderRecord } from "./render-record.js";
import { readRunInput } from "./run-input.js";
import { createRunRecording, type RunRecording } from "./run-record.js";

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
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    definitions: { name },
    cache: true,
  });
  assertUsable(project.issues, `integration ${name}`);
  output.stderr(formatWarnings(project.issues));

  const input = await readRunInput(options);
  const integration = project.compile(project.definitions[0] as LoadedDefinition);
  const choice = await adapterChoice(options, openProjectCache(project.dir));
  const adapters = createProjectAdapters(project);
  try {
    const resolved = await adapters.resolverFor(choice);
    // An adapter bass cannot call stops the run here, before it starts.
    for (const request of integration.serviceRequests) resolved(request.system);
    const recording = options.record ? createRunRecording(resolved, options.record, options.cwd) : undefined;
    return await runWith(integration, input, resolved, { project, recording, json: options.json }, output);
  } finally {
    await adapters.close();
  }
}

/** `--mock FILE`, `--replay FILE`, or the project's systems. */
async function adapterChoice(options: RunCommandOptions, cache: ProjectCache): Promise<AdapterChoice> {
  if (options.mock && options.replay)
    throw new BassError("USAGE", "--mock and --replay cannot be used together");
  if (options.mock)
    return {
      kind: "mock",
      answers: await readMockFile(resolve(options.cwd, options.mock), options.mock, cache),
      source: options.mock,
    };
  if (options.replay)
    return {
      kind: "cassette",
      cassette: await readCassette(resolve(options.cwd, options.replay), options.replay, cache),
      source: options.replay,
    };
  return { kind: "live" };
}

async function runWith(
  integration: CompiledIntegration,
  input: RunInput,
  adapters: AdapterResolver,
  context: { project: Project; recording: RunRecording | undefined; json: boolean },
  output: Output,
): Promise<number> {
  const { project, recording } = context;
  const history = openHistory(project);
  const run = startIntegration(integration, input, {
    ...project.limits,
    adapters: recording?.resolve ?? adapters,
    trigger: "cli",
    secrets: project.secrets,
  });
  if (run.started) {
    // An async run's record exists from its start (SPEC §4.9): on disk before the run can end.
    history.write(run.started);
    await history.flush();
  }
  const result = await run.completion;
  history.write(result.record);
  await recording?.save(result, integration.name);

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

import type { Env } from "../definition/load.js";
import { isRunId } from "../engine/run-id.js";
import { BassError } from "../errors.js";
import { openRequest } from "../history/kept-request.js";
import { rerunRequest } from "../history/rerun-input.js";
import { openHistory, openProject } from "../project/open.js";
import { openStateKey } from "../state/state-key.js";
import type { Output } from "./output.js";
import { assertRunnable, runLoaded } from "./run.js";

export interface RerunOptions {
  json: boolean;
  verbose?: boolean | undefined;
  progress?: ((text: string) => void) | undefined;
  project?: string | undefined;
  cwd: string;
  env: Env;
}

/**
 * `bass history rerun <id>`: runs a recorded run's integration again, against the project's systems as they
 * are configured now, and prints it as `bass run` does; the new record has trigger `rerun` and `rerun_of`.
 * The request is the one serve kept sealed with the record, else the record's own, masked values and all.
 */
export async function runHistoryRerun(id: string, options: RerunOptions, output: Output): Promise<number> {
  if (!isRunId(id))
    throw new BassError("USAGE", `${JSON.stringify(id)} is not a run id; bass history lists the runs`);
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    cache: true,
  });
  const history = openHistory(project);
  const record = await history.read(id);
  if (!record)
    throw new BassError("RUN_NOT_FOUND", `no run ${id} in the history; bass history lists the runs`);
  const definition = project.definitions.find((loaded) => loaded.value.name === record.integration);
  if (!definition)
    throw new BassError(
      "INTEGRATION_NOT_FOUND",
      `run ${id} is of ${record.integration}, which the project no longer has`,
    );
  assertRunnable(project, definition, output);
  const sealed = await history.readRequest(id);
  const kept =
    sealed === undefined ? undefined : openRequest(await openStateKey(project.dir, options.env), id, sealed);
  const request = rerunRequest(record, kept);
  if (request.masked.length)
    output.stderr(
      `warning: run ${id}'s request was not kept whole, so these fields go masked, as its record holds them: ${request.masked.join(", ")}\n`,
    );
  return runLoaded(
    project,
    definition,
    request.input,
    { ...options, choice: { kind: "live" }, cause: { trigger: "rerun", rerunOf: id } },
    output,
  );
}

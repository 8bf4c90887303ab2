import type { Env } from "../definition/load.js";
import type { Engine } from "../engine/engine.js";
import { BassError } from "../errors.js";
import { findRerun } from "../history/rerun-input.js";
import { resolveRunRef } from "../history/run-ref.js";
import { openHistory, openProject } from "../project/open.js";
import { openStateKey } from "../state/state-key.js";
import type { Output } from "./output.js";
import { assertRunnable, runLoaded } from "./run.js";

export interface RunHistoryRerunOptions {
  json: boolean;
  verbose?: boolean | undefined;
  progress?: ((text: string) => void) | undefined;
  project?: string | undefined;
  cwd: string;
  env: Env;
  /** The process's engine (see guardCellRejections); default: the project's own. */
  engine?: Engine | undefined;
}

/**
 * `bass history rerun <id>`: runs a recorded run's integration again, against the project's systems as they
 * are configured now, and prints it as `bass run` does; the new record has trigger `rerun` and `rerun_of`.
 * The request is the one serve kept sealed with the record, else the record's own, masked values and all.
 */
export async function runHistoryRerun(
  ref: string,
  options: RunHistoryRerunOptions,
  output: Output,
): Promise<number> {
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    cache: true,
    // As bass run: Python cells run in a worker thread, which loads the runtime itself.
    pythonHere: false,
    engine: options.engine,
  });
  const history = openHistory(project);
  const id = await resolveRunRef(ref, history);
  const found = await findRerun(history, id, () => openStateKey(project.dir, options.env));
  if (!found)
    throw new BassError("RUN_NOT_FOUND", `no run ${id} in the history; bass history lists the runs`);
  const { record, request } = found;
  if (!request)
    throw new BassError("USAGE", `run ${id} has no request to run again: it ended before it had one`);
  const definition = project.definitions.find((loaded) => loaded.value.name === record.integration);
  if (!definition)
    throw new BassError(
      "INTEGRATION_NOT_FOUND",
      `run ${id} is of ${record.integration}, which the project no longer has`,
    );
  assertRunnable(project, definition, output);
  if (request.masked.length) {
    const why =
      request.inexact === "another state key"
        ? "was kept with another state key than this one"
        : "was not kept (only bass serve keeps requests)";
    output.stderr(
      `warning: run ${id}'s request ${why}, so these fields go masked, as its record holds them: ${request.masked.join(", ")}\n`,
    );
  }
  return runLoaded(
    project,
    definition,
    request.input,
    { ...options, choice: { kind: "live" }, cause: { trigger: "rerun", rerunOf: id } },
    output,
  );
}

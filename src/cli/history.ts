import { type Env, resolveProject } from "../definition/load.js";
import {
  createHistoryStore,
  type HistoryFilter,
  type HistoryStore,
  resolveHistoryOptions,
} from "../engine/history.js";
import { isRunId } from "../engine/run-id.js";
import { BassError } from "../errors.js";
import type { Output } from "./output.js";
import { renderRecord, renderRunList } from "./render-record.js";

export interface HistoryOptions {
  json: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
}

/** `bass history`: the project's runs, newest first, as aligned rows or a JSON array. */
export async function runHistoryList(
  filter: HistoryFilter,
  options: HistoryOptions,
  output: Output,
): Promise<number> {
  const records = await openHistory(options).list(filter);
  output.stdout(
    options.json ? `${JSON.stringify(records, null, 2)}\n` : `${renderRunList(records, output.paint)}\n`,
  );
  return 0;
}

/** `bass history show <id>`: one run as a tree, or as JSON. */
export async function runHistoryShow(id: string, options: HistoryOptions, output: Output): Promise<number> {
  // Checked before anything reads a file: an id becomes part of a path.
  if (!isRunId(id)) {
    throw new BassError(
      "USAGE",
      `${JSON.stringify(id)} is not a run id (26 characters such as 01JD8X4ZQ5M2V7K3N9P6R1T0WY); bass history lists the runs`,
    );
  }
  const record = await openHistory(options).read(id);
  if (!record) {
    throw new BassError("RUN_NOT_FOUND", `no run ${id} in the history; bass history lists the runs`);
  }
  output.stdout(options.json ? `${JSON.stringify(record, null, 2)}\n` : renderRecord(record, output.paint));
  return 0;
}

/** The history store of the project found from the options; a project file with errors cannot be used. */
function openHistory(options: HistoryOptions): HistoryStore {
  const { dir, config } = resolveProject({ cwd: options.cwd, env: options.env, projectDir: options.project });
  const error = config.issues.find((issue) => issue.severity === "error");
  if (error) {
    throw new BassError(
      "PROJECT_INVALID",
      `${error.message} (${error.rule}); bass validate lists every problem of the project file`,
      { position: { file: error.file, line: error.line, column: error.column } },
    );
  }
  return createHistoryStore(resolveHistoryOptions(dir, config.value?.history));
}

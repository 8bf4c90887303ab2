import { isRunId } from "../engine/run-id.js";
import { BassError } from "../errors.js";
import type { HistoryStore } from "./store.js";

const latestPattern = /^latest(?:~(\d{1,4}))?$/;

/**
 * The run id a command line names: a run id as it is, `latest` for the newest run in the history, and
 * `latest~N` for the one N runs before it (as git's `HEAD~N`).
 */
export async function resolveRunRef(ref: string, history: HistoryStore): Promise<string> {
  if (isRunId(ref)) return ref;
  const latest = latestPattern.exec(ref);
  if (!latest) {
    throw new BassError(
      "USAGE",
      `${JSON.stringify(ref)} is not a run id (26 characters such as 01JD8X4ZQ5M2V7K3N9P6R1T0WY), latest or latest~N; bass history lists the runs`,
    );
  }
  const back = Number(latest[1] ?? 0);
  const newest = await history.list({ limit: back + 1 });
  const found = newest[back];
  if (!found) {
    const held = newest.length === 0 ? "no runs" : `${newest.length} run${newest.length === 1 ? "" : "s"}`;
    throw new BassError(
      "RUN_NOT_FOUND",
      `there is no ${ref}: the history holds ${held}; bass history lists them`,
    );
  }
  return found.id;
}

import { stoppedRun } from "../engine/run.js";
import { errorMessage } from "../errors.js";
import { recordLine } from "../history/store.js";
import type { RunTaskResult, StuckCell } from "./messages.js";
import type { RunName } from "./runner.js";

/** Why a run got no answer from its worker: the thread ended (out of memory, say) while it ran. */
export class WorkerDied extends Error {
  override readonly name = "WorkerDied";
}

/** A cell that outlived its time limit in a call nothing could interrupt: its worker was ended. */
export class WorkerStopped extends Error {
  override readonly name = "WorkerStopped";

  /** `cell` is the stuck cell's label, file and line, where the pool could find it. */
  constructor(
    message: string,
    readonly cell?: StuckCell,
  ) {
    super(message);
  }
}

/** What a run whose cell was stuck fails with: the cell, and that its thread was ended. */
export function stopMessage(integration: string, error: WorkerStopped): string {
  const { cell } = error;
  return `${cell ? `${integration}: ${cell.cell}: ` : ""}${error.message}: its worker thread was ended and replaced`;
}

/**
 * The result of a run whose worker thread ended under it, or that could not run (a definition gone since
 * the project was loaded): the engine's record of a stopped run (`stoppedRun`), masked with `scrub`
 * (an adapter's own error may quote a secret), under the run's own id when it had said its start, whose
 * running record this one replaces. Not the run's own end: a retry with the same Idempotency-Key runs.
 */
export function stoppedRunResult(
  task: RunName,
  error: unknown,
  startedId: string | undefined,
  scrub: <T>(value: T) => T,
  startedAt?: number,
): RunTaskResult {
  const stopped = error instanceof WorkerStopped;
  const died = error instanceof WorkerDied;
  const code = stopped ? "cell_timeout" : died ? "worker_died" : "worker_error";
  const cell = stopped ? error.cell : undefined;
  const message = scrub(
    stopped
      ? stopMessage(task.integration, error)
      : died
        ? `the worker thread running it ended: ${error.message}`
        : `it could not be run: ${errorMessage(error)}`,
  );
  const stop = { code, message, status: stopped ? 504 : 500, cell, startedAt };
  const { record, output } = stoppedRun(task, stop, startedId);
  return {
    runId: record.id,
    status: "failure",
    output,
    outputJson: JSON.stringify(output.payload),
    maskedPath: "-",
    recordLine: recordLine(record, { storePayloads: true }),
    record,
    retryable: true,
  };
}

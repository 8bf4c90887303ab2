import type { RunRecord } from "../engine/types.js";
import type { RunStarted, RunTask, RunTaskResult } from "./messages.js";

/** A run as a caller asks for it; what carries it to a worker (a port, a flag, a task number) is the runner's. */
export type RunRequest = Omit<RunTask, "port" | "calls" | "poolTask">;

/** What a run is, for the record of one that stopped before it could say. */
export type RunName = Pick<RunRequest, "integration" | "trigger" | "rerunOf">;

/**
 * What a run that may have Python cells needs of a pooled runner: their remote calls, and its worker ended
 * when one of them is stuck past its deadline (see src/pool/stuck-cells.ts).
 */
export interface PythonTask {
  remoteCalls: boolean;
  /**
   * Python cells of it, or of its children in its worker, may call integrations, which may be Python ones:
   * the pool one callint level down starts with it.
   */
  callsIntegrations: boolean;
}

/**
 * The one way a run executes, on this thread (createThreadRunner) or in a worker thread (createRunPool):
 * serve, `bass run` and `bass test` ask a runner, and get the same plain data back from either.
 */
export interface Runner {
  /**
   * Runs a task to its end; `onStarted` gets an async run's start (on this thread, the run's work waits for
   * what it returns: bass run writes the running record first). A run that its thread could not end (a
   * worker that died, a cell stuck past its deadline) answers its `stoppedRunResult`; an error met
   * before the run (a BassError: no such integration) is thrown.
   */
  run(
    task: RunRequest,
    onStarted?: (started: RunStarted) => unknown,
    python?: PythonTask,
  ): Promise<RunTaskResult>;
  /**
   * The record and the 500 of a run that `error` stopped before it could say how it ended; `startedId` is the
   * run's own id when it had said its start, whose running record this one replaces.
   */
  failed(task: RunName, error: unknown, startedId?: string): RunTaskResult;
  /**
   * Waits up to `closeGraceMs` for runs that go on after their answer (async callint children), then lets
   * go of its threads: a pool's workers end, and with them what still runs there.
   */
  close(): Promise<void>;
}

/** How long closing a runner waits for the runs that go on after their answer: as long as a stopping serve. */
export const closeGraceMs = 10_000;

/** Waits for `work` to settle, or `ms`, whichever comes first. */
export async function settledWithin(work: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (work.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(work), timeUp]);
  clearTimeout(timer);
}

/** A run's record as an object: the one the task returned, or read back from its line. */
export function recordOf(result: RunTaskResult): RunRecord {
  return result.record ?? (JSON.parse(result.recordLine) as RunRecord);
}

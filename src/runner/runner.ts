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
   * worker that died, a Python cell stuck past its deadline) answers its `stoppedRunResult`; an error met
   * before the run (a BassError: no such integration) is thrown.
   */
  run(
    task: RunRequest,
    onStarted?: (started: RunStarted) => unknown,
    python?: PythonTask,
  ): Promise<RunTaskResult>;
  /** The record and the 500 of a run that `error` stopped before it could say how it ended. */
  failed(task: RunName, error: unknown): RunTaskResult;
  /** Waits for runs that go on after their answer (async callint children), and lets go of the threads. */
  close(): Promise<void>;
}

/** A run's record as an object: the one the task returned, or read back from its line. */
export function recordOf(result: RunTaskResult): RunRecord {
  return result.record ?? (JSON.parse(result.recordLine) as RunRecord);
}

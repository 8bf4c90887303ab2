import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { RunTrigger } from "../engine/record.js";
import { createRunId } from "../engine/run-id.js";
import { BassError, type BassErrorCode } from "../errors.js";
import { recordLine } from "../history/store.js";
import type { RunStarted, RunTask, RunTaskError, RunTaskResult, RunWorkerData } from "./task.js";

const here = fileURLToPath(import.meta.url);
// Run from its sources (tests), the pool starts the build's worker: `npm test` builds it first.
const workerFile = here.endsWith(".ts")
  ? join(dirname(here), "../../dist/pool/run-worker.js")
  : join(dirname(here), "run-worker.js");

/** Why a run got no answer from its worker: the thread ended (out of memory, say) while it ran. */
export class WorkerDied extends Error {
  override readonly name = "WorkerDied";
}

/** Where a pool's worker errors go that no task stands for (a worker that ended while idle). */
export type LogWorkerError = (error: unknown) => void;

export interface RunPoolOptions {
  data: RunWorkerData;
  workers: number;
  /** Each worker's heap limit, in MB. */
  memoryMb: number;
  logError?: LogWorkerError;
}

/** Worker threads that run integrations off the thread that calls them; a worker that dies is replaced. */
export interface RunPool {
  /** Runs a task; `onStarted` gets an async run's start. Rejects with WorkerDied when the worker ended. */
  run(task: Omit<RunTask, "port">, onStarted?: (started: RunStarted) => void): Promise<RunTaskResult>;
  close(): Promise<void>;
}

export function createRunPool(options: RunPoolOptions): RunPool {
  const pool = new Piscina({
    filename: workerFile,
    workerData: options.data,
    minThreads: options.workers,
    maxThreads: options.workers,
    // A run waits for its system's answers: a worker takes on more than one at a time.
    concurrentTasksPerWorker: 16,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Runs wait on I/O: a worker must keep its event loop, not block in Atomics.wait between tasks.
    atomics: "disabled",
    resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
  });
  // piscina replaces a worker that ended; one that ended with no task in flight is only reported here.
  pool.on("error", (error: unknown) => options.logError?.(error));
  return {
    async run(task, onStarted) {
      // A port only for a run that says when it started (an async one): making one costs more than the run.
      const channel = onStarted ? new MessageChannel() : undefined;
      if (channel && onStarted) channel.port1.on("message", onStarted);
      let answer: RunTaskResult | RunTaskError;
      try {
        const options = channel ? { transferList: [channel.port2] } : {};
        answer = await pool.run({ ...task, port: channel?.port2 }, options);
      } catch (error) {
        // The task answers its own errors: a rejection is the worker's end.
        throw new WorkerDied(describe(error), { cause: error });
      } finally {
        channel?.port1.close();
      }
      if ("error" in answer) {
        const { code, message } = answer.error;
        throw code ? new BassError(code as BassErrorCode, message) : new Error(message);
      }
      return answer;
    },
    close: () => pool.destroy(),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The record and the 500 of a run whose worker ended under it (SPEC §13.1), or could not run it (a
 * definition gone since the project was loaded): no payloads, a FAILURE item saying why, a run id of its
 * own since the worker never said its own.
 */
export function failedRunResult(
  integration: string,
  trigger: RunTrigger,
  error: unknown,
  startedId?: string,
): RunTaskResult {
  // An async run that said it started keeps its id: this record replaces its running one.
  const runId = startedId ?? createRunId();
  const at = new Date().toISOString();
  const code = error instanceof WorkerDied ? "worker_died" : "worker_error";
  const message =
    error instanceof WorkerDied
      ? `the worker thread running it ended: ${error.message}`
      : `the worker thread could not run it: ${describe(error)}`;
  const output = {
    status: 500,
    headers: {},
    payload: { error: { code, message, run_id: runId, details: [] } },
  };
  return {
    runId,
    status: "failure",
    output,
    outputJson: JSON.stringify(output.payload),
    maskedOutput: output,
    maskedPath: "-",
    recordLine: recordLine(
      {
        id: runId,
        integration,
        status: "failure",
        trigger,
        started_at: at,
        ended_at: at,
        duration_ms: 0,
        labels: [],
        async: false,
        items: [{ seq: 1, at, kind: "FAILURE", error: { code, message } }],
      },
      true,
    ),
  };
}

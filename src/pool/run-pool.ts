import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BroadcastChannel, MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import type { Env } from "../definition/load.js";
import { createScrubber } from "../engine/masks.js";
import type { RunRecord } from "../engine/record.js";
import { createRunId } from "../engine/run-id.js";
import { BassError, type BassErrorCode, errorMessage } from "../errors.js";
import { recordLine } from "../history/store.js";
import type { Project } from "../project/project.js";
import { createPythonChildren, hasPython, type PythonTask } from "./python-tasks.js";
import type { RemoteHandler } from "./remote-handler.js";
import { watchStuckCells } from "./stuck-cells.js";
import type {
  ChildRecord,
  RemoteAnswer,
  RemoteCall,
  RunStarted,
  RunTask,
  RunTaskError,
  RunTaskResult,
  RunWorkerData,
} from "./task.js";

const here = fileURLToPath(import.meta.url);
// Run from its sources (tests), the pool starts the build's worker: `npm test` builds it first.
const workerFile = here.endsWith(".ts")
  ? join(dirname(here), "../../dist/pool/run-worker.js")
  : join(dirname(here), "run-worker.js");

/** Why a run got no answer from its worker: the thread ended (out of memory, say) while it ran. */
class WorkerDied extends Error {
  override readonly name = "WorkerDied";
}

/** A Python cell that outlived its time limit in a call nothing could interrupt: its worker was ended. */
class WorkerStopped extends Error {
  override readonly name = "WorkerStopped";
}

/** Where a pool's worker errors go that no task stands for (a worker that ended while idle). */
export type LogWorkerError = (error: unknown) => void;

export interface RunPoolOptions {
  /** The project the workers open: its folder, and the heap limit of `limits.cell_memory_mb`. */
  project: Project;
  cwd: string;
  env: Env;
  workers: number;
  /** Open it as serve does (see RunWorkerData). */
  requestSchemas?: boolean;
  /** Seal each run's request with this key where it runs, to keep it with the record (serve). */
  stateKey?: Uint8Array | undefined;
  /** Headers left out of a sealed request (serve's own credential). */
  unkeptHeaders?: string[] | undefined;
  /** Where the runs keep their vaults, when not the project's own (bass test's fresh copy). */
  vaultDir?: string | undefined;
  /**
   * Where the records of callint children that end after their parent's answer go (serve): a task then
   * answers when its run ends. Without it, a task waits for its async children too.
   */
  onLaterChild?: ((child: ChildRecord) => void) | undefined;
  /** Answers Python runs' remote calls (calladapter, callint) here, while their worker waits blocked. */
  remote?: RemoteHandler | undefined;
  /** What a failure's message is masked with (default: the project's secrets). */
  secrets?: () => Iterable<string>;
  logError?: LogWorkerError;
}

/** What a run is, for the record of one that failed before it could say. */
type TaskName = Pick<RunTask, "integration" | "trigger" | "rerunOf">;

/** Worker threads that run integrations off the thread that calls them; a worker that dies is replaced. */
export interface RunPool {
  /**
   * Runs a task; `onStarted` gets an async run's start, `python` says what its Python cells need. A worker
   * that ends under it gives the run a `worker_died` record and a 500, one ended for a Python cell of it
   * stuck past its deadline a `cell_timeout` record and a 504; an error the worker met before the run (a
   * BassError) is thrown.
   */
  run(
    task: Omit<RunTask, "port" | "calls" | "poolTask">,
    onStarted?: (started: RunStarted) => void,
    python?: PythonTask,
  ): Promise<RunTaskResult>;
  /** The record and the 500 of a run that `error` stopped before it could say how it ended. */
  failed(task: TaskName, error: unknown): RunTaskResult;
  close(): Promise<void>;
}

export function createRunPool(options: RunPoolOptions): RunPool {
  const { project, onLaterChild } = options;
  const later = onLaterChild && new BroadcastChannel(`bass-children-${createRunId()}`);
  if (later) {
    later.onmessage = (event) => onLaterChild((event as { data: ChildRecord }).data);
    later.unref();
  }
  const stuck = watchStuckCells(() => pool.threads, stopGraceMs);
  const data: RunWorkerData = {
    cwd: options.cwd,
    env: { ...options.env },
    projectDir: project.dir,
    requestSchemas: options.requestSchemas,
    stateKey: options.stateKey,
    unkeptHeaders: options.unkeptHeaders,
    vaultDir: options.vaultDir,
    laterChildren: later?.name as string | undefined,
    stuckCells: stuck.buffer,
    python: hasPython(project),
  };
  const pool = new Piscina({
    filename: workerFile,
    workerData: data,
    minThreads: options.workers,
    maxThreads: options.workers,
    // A run waits for its system's answers: a worker takes on more than one at a time.
    concurrentTasksPerWorker: 16,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Runs wait on I/O: a worker must keep its event loop, not block in Atomics.wait between tasks.
    atomics: "disabled",
    resourceLimits: { maxOldGenerationSizeMb: project.limits.cellMemoryMb },
  });
  // piscina replaces a worker that ended; one that ended with no task in flight is only reported here.
  pool.on("error", (error: unknown) => options.logError?.(error));
  pool.on("workerDestroy", () => stuck.freeEnded());
  const secrets = options.secrets ?? (() => project.secrets);
  const failed = (task: TaskName, error: unknown, startedId?: string) =>
    failedRunResult(task, error, startedId, createScrubber(secrets()));
  // The pool one callint level down, for the Python children of this one's Python runs.
  let below: RunPool | undefined;
  const poolBelow = () => {
    // Its runs are children, whose requests are kept with their parents': none is sealed.
    below ??= createRunPool({ ...options, workers: 1, stateKey: undefined });
    return below;
  };
  const answerer = (task: Omit<RunTask, "port" | "calls" | "poolTask">) => {
    const { remote } = options;
    if (!remote) return undefined;
    const place = { version: task.version, mockcoreUrl: task.mockcoreUrl, choice: task.choice };
    return (call: RemoteCall) => remote.answer(call, task.choice, createPythonChildren(poolBelow, place));
  };
  return {
    async run(task, onStarted, python) {
      // The level below starts now, loading Python while this run gets to its first call.
      if (python?.callsIntegrations && options.remote) poolBelow();
      const talk = taskTalk(onStarted, python?.remoteCalls ? answerer(task) : undefined);
      const poolTask = python && stuck.begin();
      const done = () => poolTask !== undefined && stuck.end(poolTask);
      let answer: RunTaskResult | RunTaskError;
      let answered = false;
      try {
        answer = await pool.run(
          { ...task, port: talk.port, calls: talk.calls, poolTask },
          talk.port ? { transferList: [talk.port] } : undefined,
        );
        answered = true;
      } catch (error) {
        // The task answers its own errors: a rejection is the worker's end.
        const stopped = poolTask !== undefined && stuck.stopped(poolTask);
        return failed(task, workerEnd(error, stopped), talk.startedId());
      } finally {
        // A run's async children may go on after it, in its worker, with its port and its task's number. A
        // task that got no answer has no worker that holds its port.
        if (onLaterChild && answered) talk.whenLetGo(done);
        else {
          done();
          talk.close();
        }
      }
      if ("error" in answer) {
        const { code, message } = answer.error;
        throw code ? new BassError(code as BassErrorCode, message) : new Error(message);
      }
      return answer;
    },
    failed,
    close: async () => {
      stuck.close();
      await Promise.all([pool.destroy(), below?.close()]);
      later?.close();
    },
  };
}

/**
 * What a task and this thread say to each other while it runs: a port only for a run that says when it
 * started (an async one) or whose Python cells make remote calls, since making one costs more than a run.
 */
function taskTalk(
  onStarted: ((started: RunStarted) => void) | undefined,
  answer: ((call: RemoteCall) => Promise<RemoteAnswer>) | undefined,
) {
  const channel = onStarted || answer ? new MessageChannel() : undefined;
  const calls = answer && new SharedArrayBuffer(4);
  let startedId: string | undefined;
  // Listened for from the start: the worker may let go of the port before its answer comes.
  let letGo = !channel;
  const afterLetGo: (() => void)[] = [];
  channel?.port1.once("close", () => {
    letGo = true;
    for (const done of afterLetGo.splice(0)) done();
  });
  channel?.port1.on("message", (message: RunStarted | (RemoteCall & { id: number })) => {
    if (!("kind" in message)) {
      startedId = message.runId;
      onStarted?.(message);
    } else if (answer && calls) void answerRemote(answer, message, channel.port1, calls);
  });
  return {
    port: channel?.port2,
    calls,
    startedId: () => startedId,
    /** Calls `done` once the worker has let go of the port (or ended), or at once when there is none. */
    whenLetGo(done: () => void) {
      if (letGo) done();
      else afterLetGo.push(done);
    },
    close: () => channel?.port1.close(),
  };
}

/** How long past its deadline a Python cell is given before its worker is ended. */
const stopGraceMs = 1000;

/** Answers one remote call of a Python run on its port, then wakes its worker, which waits on `calls`. */
async function answerRemote(
  answerOf: (call: RemoteCall) => Promise<RemoteAnswer>,
  call: RemoteCall & { id: number },
  port: MessagePort,
  calls: SharedArrayBuffer,
): Promise<void> {
  let answer: RemoteAnswer;
  try {
    answer = await answerOf(call);
  } catch (error) {
    answer = { error: errorMessage(error) };
  }
  port.postMessage({ ...answer, id: call.id });
  const flag = new Int32Array(calls);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

/** Why a task's worker ended under it: a Python cell of it stuck past its deadline, or anything else. */
function workerEnd(error: unknown, stuck: boolean): Error {
  return stuck
    ? new WorkerStopped("a Python cell ran past its time limit inside a call nothing could interrupt")
    : new WorkerDied(errorMessage(error), { cause: error });
}

/** A run's record as an object: the one the task returned, or read back from its line. */
export function recordOf(result: RunTaskResult): RunRecord {
  return result.record ?? (JSON.parse(result.recordLine) as RunRecord);
}

/**
 * The record and the 500 of a run whose worker ended under it (SPEC §13.1), or that its worker could not
 * run (a definition gone since the project was loaded): no payloads, a FAILURE item saying why, masked
 * with `scrub` (an adapter's own error may quote a secret), and a run id of its own unless the run had
 * said its start, whose running record this one replaces.
 */
function failedRunResult(
  { integration, trigger, rerunOf }: TaskName,
  error: unknown,
  startedId: string | undefined,
  scrub: <T>(value: T) => T,
): RunTaskResult {
  const runId = startedId ?? createRunId();
  const at = new Date().toISOString();
  const stopped = error instanceof WorkerStopped;
  const died = error instanceof WorkerDied;
  const code = stopped ? "cell_timeout" : died ? "worker_died" : "worker_error";
  const message = scrub(
    stopped
      ? `${error.message}: its worker thread was ended and replaced`
      : died
        ? `the worker thread running it ended: ${error.message}`
        : `the worker thread could not run it: ${errorMessage(error)}`,
  );
  const output = {
    status: stopped ? 504 : 500,
    headers: {},
    payload: { error: { code, message, run_id: runId, details: [] } },
  };
  const record: RunRecord = {
    id: runId,
    integration,
    status: "failure",
    trigger,
    started_at: at,
    ended_at: at,
    duration_ms: 0,
    labels: [],
    async: false,
    ...(rerunOf === undefined ? {} : { rerun_of: rerunOf }),
    items: [{ seq: 1, at, kind: "FAILURE", error: { code, message } }],
  };
  return {
    runId,
    status: "failure",
    output,
    outputJson: JSON.stringify(output.payload),
    maskedPath: "-",
    recordLine: recordLine(record, true),
    record,
    retryable: true,
  };
}

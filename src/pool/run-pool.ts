import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BroadcastChannel, MessageChannel, type MessagePort } from "node:worker_threads";
import { cellKey, listCells } from "../definition/cells.js";
import type { Env } from "../definition/load.js";
import { createScrubber } from "../engine/masks.js";
import { createRunId } from "../engine/run-id.js";
import { BassError, type BassErrorCode, errorMessage } from "../errors.js";
import type { Project } from "../project/project.js";
import type {
  ChildRecord,
  RemoteAnswer,
  RemoteCall,
  RunStarted,
  RunTaskError,
  RunTaskResult,
  RunWorkerData,
  StuckCell,
} from "../runner/messages.js";
import {
  closeGraceMs,
  type PythonTask,
  type RunName,
  type Runner,
  type RunRequest,
  settledWithin,
} from "../runner/runner.js";
import { stopMessage, stoppedRunResult, WorkerDied, WorkerStopped } from "../runner/stopped.js";
import { createPythonChildren, hasPython } from "./python-tasks.js";
import type { RemoteHandler } from "./remote-handler.js";
import { watchStuckCells } from "./stuck-cells.js";
import { createThreadPool } from "./threads.js";

const here = fileURLToPath(import.meta.url);
// Run from its sources (tests), the pool starts the build's worker: `npm test` builds it first.
const workerFile = here.endsWith(".ts")
  ? join(dirname(here), "../../dist/pool/run-worker.js")
  : join(dirname(here), "run-worker.js");

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
  /** A worker was replaced after a run, and why (memory it kept, built-ins a Python cell changed). */
  onWorkerReplaced?: ((reason: string) => void) | undefined;
}

/**
 * The pooled runner: worker threads that run integrations off the thread that calls them, each with the
 * heap limit of `limits.cell_memory_mb`. A worker that ends under a run gives it a `worker_died` record and
 * a 500, one ended for a Python cell of it stuck past its deadline a `cell_timeout` record and a 504; the
 * worker is replaced.
 */
export type RunPool = Runner;

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
  const pool = createThreadPool({
    filename: workerFile,
    workerData: data,
    size: options.workers,
    // A run waits for its system's answers: a worker takes on more than one at a time.
    perThread: 16,
    resourceLimits: { maxOldGenerationSizeMb: project.limits.cellMemoryMb },
    // A worker that ended with no run in it is only reported; the pool replaces every worker that ends.
    onIdleError: (error) => options.logError?.(error),
    onExit: () => stuck.freeEnded(),
    onRetire: options.onWorkerReplaced,
    avoid: (worker) => stuck.held(worker),
  });
  const secrets = options.secrets ?? (() => project.secrets);
  /** Why a task's worker ended under it: one of its cells stuck (and which), or the worker's own end. */
  const workerEnd = (error: unknown, integration: string, poolTask: number): Error =>
    stuck.stopped(poolTask)
      ? new WorkerStopped(stuckMessage, stuckCell(project, integration, stuck.stoppedCell(poolTask)))
      : new WorkerDied(errorMessage(error), { cause: error });
  const failed = (task: RunName, error: unknown, startedId?: string, startedAt?: number) =>
    stoppedRunResult(task, error, startedId, createScrubber(secrets()), startedAt);
  // The answered tasks whose worker still holds their port (their async children run on).
  const lettingGo = new Set<Promise<void>>();
  // The pool one callint level down, for the Python children of this one's Python runs.
  let below: RunPool | undefined;
  const poolBelow = () => {
    // Its runs are children, whose requests are kept with their parents': none is sealed.
    below ??= createRunPool({ ...options, workers: 1, stateKey: undefined });
    return below;
  };
  const answerer = (task: RunRequest) => {
    const { remote } = options;
    if (!remote) return undefined;
    const place = { version: task.version, mockcoreUrl: task.mockcoreUrl, choice: task.choice };
    return (call: RemoteCall) => remote.answer(call, task.choice, createPythonChildren(poolBelow, place));
  };
  const run = async (
    task: RunRequest,
    onStarted: ((started: RunStarted) => unknown) | undefined,
    python: PythonTask | undefined,
    attempt: number,
  ): Promise<RunTaskResult> => {
    // The level below starts now, loading Python while this run gets to its first call.
    if (python?.callsIntegrations && options.remote) poolBelow();
    const talk = taskTalk(onStarted, python?.remoteCalls ? answerer(task) : undefined);
    // Every task: a cell of any language may hold its worker in a call nothing can interrupt.
    const startedAt = Date.now();
    const poolTask = stuck.begin();
    const done = () => stuck.end(poolTask);
    // The worker lets go of the port once the run and its async children have ended: what it said on the
    // port until then (an async run's start) is still read, though the answer came on another one. A
    // task that got no answer has no worker that holds its port.
    const release = (answered: boolean) => {
      if (!answered) {
        done();
        talk.close();
        return;
      }
      const letGo = talk.whenLetGo(done);
      lettingGo.add(letGo);
      void letGo.then(() => lettingGo.delete(letGo));
    };
    let answer: RunTaskResult | RunTaskError | undefined;
    let ended: AfterEnd | undefined;
    try {
      answer = (await pool.run(
        { ...task, port: talk.port, calls: talk.calls, poolTask },
        talk.port ? [talk.port] : undefined,
      )) as RunTaskResult | RunTaskError;
    } catch (error) {
      ended = afterEnd(task, error, poolTask, attempt, talk.startedId(), startedAt);
    } finally {
      release(answer !== undefined);
    }
    if (!ended) return resultOf(answer as RunTaskResult | RunTaskError);
    return "result" in ended ? ended.result : runAgain(ended, task, onStarted, python);
  };
  // Run again, the same run says its start as before; a stopped run's failure path has said it already.
  const runAgain = (
    { next, attempt }: { next: RunRequest; attempt: number },
    task: RunRequest,
    onStarted: ((started: RunStarted) => unknown) | undefined,
    python: PythonTask | undefined,
  ) => run(next, next === task ? onStarted : undefined, python, attempt);
  type AfterEnd = { result: RunTaskResult } | { next: RunRequest; attempt: number };
  /**
   * What a task whose worker ended under it comes to (a rejection is the worker's end: a task answers its
   * own errors). A run that had not acted outside its worker (it ran beside, or waited behind, another
   * run's stuck cell) runs again. A run stuck where nothing could interrupt it fails as a timed-out run
   * does, its failure path running on another worker; one stuck there too, or whose worker died, ends here.
   */
  const afterEnd = (
    task: RunRequest,
    error: unknown,
    poolTask: number,
    attempt: number,
    startedId: string | undefined,
    startedAt: number,
  ): AfterEnd => {
    if (attempt < attemptsAtMost && !stuck.stopped(poolTask) && !stuck.acted(poolTask))
      return { next: task, attempt: attempt + 1 };
    const end = workerEnd(error, task.integration, poolTask);
    if (!(end instanceof WorkerStopped) || task.stopped)
      return { result: failed(task, end, startedId, startedAt) };
    const message = stopMessage(task.integration, end);
    return {
      next: { ...task, stopped: { message, cell: end.cell, runId: startedId, startedAt } },
      attempt: 1,
    };
  };
  return {
    run: (task, onStarted, python) => run(task, onStarted, python, 1),
    failed,
    async close() {
      // Async children still running end first, for as long as a stopping serve gives its runs.
      await settledWithin([...lettingGo], closeGraceMs);
      stuck.close();
      await Promise.all([pool.close(), below?.close()]);
      later?.close();
    },
  };
}

/** A task's result, or the error that stopped it before its run (no such integration). */
function resultOf(answer: RunTaskResult | RunTaskError): RunTaskResult {
  if (!("error" in answer)) return answer;
  const { code, message } = answer.error;
  throw code ? new BassError(code as BassErrorCode, message) : new Error(message);
}

/**
 * What a task and this thread say to each other while it runs: a port only for a run that says when it
 * started (an async one) or whose Python cells make remote calls, since making one costs more than a run.
 */
function taskTalk(
  onStarted: ((started: RunStarted) => unknown) | undefined,
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
      // What keeping the start met is the caller's to report (bass run's flush fails again at its end).
      void Promise.resolve(onStarted?.(message)).catch(() => {});
    } else if (answer && calls) void answerRemote(answer, message, channel.port1, calls);
  });
  return {
    port: channel?.port2,
    calls,
    startedId: () => startedId,
    /** Calls `done` once the worker has let go of the port (or ended), or at once when there is none. */
    whenLetGo(done: () => void): Promise<void> {
      return new Promise<void>((resolve) => {
        const end = () => {
          done();
          resolve();
        };
        if (letGo) end();
        else afterLetGo.push(end);
      });
    },
    close: () => channel?.port1.close(),
  };
}

/**
 * How many workers a task that never acted outside them may see end under it (for other runs' stuck
 * cells) before it fails: a worker that cannot start at all fails what waits for it.
 */
const attemptsAtMost = 3;

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

/** Why a task's worker ended under it: a cell of it stuck past its deadline, or anything else. */
const stuckMessage = "a cell ran past its time limit inside a call nothing could interrupt";

/** The stuck cell of a definition of `project`, found by the `cellKey` its worker wrote. */
function stuckCell(project: Project, integration: string, key: number | undefined): StuckCell | undefined {
  if (key === undefined) return undefined;
  const loaded = project.definitions.find((definition) => definition.value?.name === integration);
  const ref = loaded?.value && listCells(loaded.value).find((cell) => cellKey(cell.label) === key);
  if (!loaded || !ref) return undefined;
  return { cell: ref.label, file: loaded.file, line: loaded.source.locate(ref.path).line };
}

// Everything that crosses between a thread that asks for runs and a worker thread that runs them, and
// nothing else: the worker's start-up data, a task and its answer, an async run's start, the records of
// callint children, and a Python run's remote calls. All of it is plain data (structured clone), so the
// in-thread runner hands callers the very same shapes.
import type { MessagePort } from "node:worker_threads";
import type { Env } from "../definition/load.js";
import type { CallintRequest } from "../engine/callint.js";
import type { CoverageHits } from "../engine/coverage.js";
import type { CallSlot, CallTarget } from "../engine/service-requests.js";
import type { OutputData, RunInput, RunRecord, RunTrigger } from "../engine/types.js";
import type { AdapterChoice } from "../project/adapters.js";

/** What a worker thread that runs integrations opens: the project, as the thread that started it did. */
export interface RunWorkerData {
  cwd: string;
  env: Env;
  projectDir: string;
  /** Opened as serve opens it (request_schema checked): the same `.bass/cache` entry, when the files are the same. */
  requestSchemas?: boolean | undefined;
  /** The state key: each run's request is sealed with it where the run is, to be kept with its record. */
  stateKey?: Uint8Array | undefined;
  /** Headers left out of the sealed request (serve's own credential). */
  unkeptHeaders?: string[] | undefined;
  /** Where the runs keep their vaults, when not the project's own `.bass/vaults` (bass test's fresh copy). */
  vaultDir?: string | undefined;
  /**
   * A BroadcastChannel's name: set, a task answers when its run ends, and the records of callint children
   * that end later (async ones) go there. Unset, a task waits for its children, whose records go with it.
   */
  laterChildren?: string | undefined;
  /** Where the worker says which task's Python cell it runs until when (see stuck-cells.ts). */
  stuckCells?: SharedArrayBuffer | undefined;
  /** The project has Python definitions: the worker loads the runtime as it starts, before its first task. */
  python?: boolean | undefined;
}

/** One run for a worker: an integration of the project as loaded at `version`, with its input. */
export interface RunTask {
  /** Which load of the project (serve --watch counts them): a worker opens it anew when it changes. */
  version: number;
  integration: string;
  input: RunInput;
  trigger: RunTrigger;
  /** The run this one runs again (trigger `rerun`). */
  rerunOf?: string | undefined;
  /** The embedded mock core the thread that started the worker runs. */
  mockcoreUrl: string | undefined;
  /** Where the run's adapters answer from (default: the project's systems). */
  choice?: AdapterChoice | undefined;
  /** The record is wanted as an object too (bass run prints it). */
  returnRecord?: boolean | undefined;
  /** Texts to mask as the run masks its record (a test's expected values): they come back as `maskedTexts`. */
  maskTexts?: string[] | undefined;
  /** Count what of its definitions the run and its callint children reach: they come back as `coverage`. */
  coverage?: boolean | undefined;
  /** Where an async run says it started (its 202) before it ends, and a Python run makes its remote calls. */
  port?: MessagePort | undefined;
  /**
   * A Python run's flag for its remote calls (calladapter, callint): the thread that started the worker
   * sets it once an answer waits on `port`, while the worker's thread waits blocked (see RemoteCalls).
   */
  calls?: SharedArrayBuffer | undefined;
  /** The pool's number for a Python task, which its cells report (see stuck-cells.ts). */
  poolTask?: number | undefined;
  /** A callint child's: the run that called it, and callint's mode (see python-tasks.ts). */
  callint?: Pick<RemoteCallintRequest, "parent" | "runAsync"> | undefined;
  /** The run was stopped where nothing could interrupt it: this task runs its failure path only. */
  stopped?: StoppedRun | undefined;
}

/** Where a stuck cell is: its label, its definition's file and its line there. */
export interface StuckCell {
  cell: string;
  file: string;
  line: number;
}

/** Why a run's thread was ended under it, for the task that runs its failure path (RunOptions.stopped). */
export interface StoppedRun {
  message: string;
  /** The stuck cell, where the pool could find it. */
  cell?: StuckCell | undefined;
  /** The run's id where it had said its start (an async run's 202). */
  runId?: string | undefined;
  /** When the run began, in ms since the epoch. */
  startedAt: number;
}

/** A record a run's callint child made, as the history store's line. */
export interface ChildRecord {
  runId: string;
  line: string;
}

/** An async run's start, sent on the task's port before its end. */
export interface RunStarted {
  runId: string;
  /** The running record, as the history store's line. */
  startedLine: string;
  accepted: OutputData;
  /** The request path, masked as the run's record is. */
  maskedPath: string;
  /** The run's request, sealed with the state key, when the worker has one. */
  sealedRequest?: string | undefined;
}

/** Why a task ended without a run: an error of bass's own kind (a BassError's code), as data. */
export interface RunTaskError {
  error: { code: string | undefined; message: string };
}

/** A run's end, as plain data: what serve sends and keeps, every masked form made where the run was. */
export interface RunTaskResult {
  runId: string;
  status: "success" | "failure";
  /** The output; its payload only when it is a byte string (else `outputJson` is it). */
  output: OutputData;
  outputJson: string | undefined;
  /** The record, as the history store's line. */
  recordLine: string;
  /** The run's request, sealed with the state key, when the worker has one. */
  sealedRequest?: string | undefined;
  /** The records of the runs it started with callint, in the order they were made. */
  childRecords?: ChildRecord[] | undefined;
  /** The record, when the task asked for it. */
  record?: RunRecord | undefined;
  maskedPath: string;
  /** `maskTexts`, masked as the run's record is. */
  maskedTexts?: string[] | undefined;
  /** Not the run's own end: its worker ended under it, or could not run it (a retry may run it). */
  retryable?: boolean | undefined;
  /** An async run's 202, also here: its start's message may come after its end. */
  accepted?: OutputData | undefined;
  /**
   * The values the run masked (its secrets among them), for a callint child (its parent masks them too)
   * and a task that asked for its record (the caller masks what else it shows of the run).
   */
  maskedValues?: readonly string[] | undefined;
  /** What of its definitions the run and its callint children reached, for a task that asked. */
  coverage?: CoverageHits | undefined;
}

/** A callint request as it crosses threads: the parent's namespace as a value, not a function. */
export type RemoteCallintRequest = Omit<CallintRequest, "parent"> & {
  parent: Omit<CallintRequest["parent"], "namespace"> & { namespace: unknown };
};

/** A remote call of a Python run, sent on its task's port. */
export type RemoteCall =
  | { kind: "calladapter"; target: CallTarget; request: CallSlot["request"]; remainingMs: number }
  | { kind: "callint"; request: RemoteCallintRequest };

/** Its answer: the value, or why there is none. */
export type RemoteAnswer = { value: unknown } | { error: string };

import type { MessagePort } from "node:worker_threads";
import type { Env } from "../definition/load.js";
import type { OutputData, RunRecord, RunTrigger } from "../engine/record.js";
import type { RunInput } from "../engine/run.js";

/** What a worker thread that runs integrations opens: the project, as the thread that started it did. */
export interface RunWorkerData {
  cwd: string;
  env: Env;
  projectDir: string;
}

/** One run for a worker: an integration of the project as loaded at `version`, with its input. */
export interface RunTask {
  /** Which load of the project (serve --watch counts them): a worker opens it anew when it changes. */
  version: number;
  integration: string;
  input: RunInput;
  trigger: RunTrigger;
  /** The embedded mock core the thread that started the worker runs. */
  mockcoreUrl: string | undefined;
  /** Where an async run says it started (its 202) before it ends. */
  port?: MessagePort | undefined;
}

/** An async run's start, sent on the task's port before its end. */
export interface RunStarted {
  runId: string;
  started: RunRecord;
  accepted: OutputData;
  /** The request path, masked as the run's record is. */
  maskedPath: string;
}

/** A run's end, as plain data: what serve sends and keeps, every masked form made where the run was. */
export interface RunTaskResult {
  runId: string;
  status: "success" | "failure";
  output: OutputData;
  outputJson: string | undefined;
  record: RunRecord;
  /** The output masked like the record: what the idempotency store keeps on disk. */
  maskedOutput: OutputData;
  maskedPath: string;
}

import type { AdapterResolver } from "../adapters/adapter.js";
import { BassError } from "../errors.js";
import { setOwn } from "../objects.js";
import type { CallintRunner } from "./callint.js";
import type { CompiledIntegration } from "./compile.js";
import type { CoverageRecorder } from "./coverage.js";
import { enterFailure, failOnError } from "./failure.js";
import { applyMasks, createScrubber, maskRecord } from "./masks.js";
import { createNamespace } from "./namespace.js";
import { checkOutput, recordedOutput } from "./output.js";
import type { RemoteCalls } from "./remote.js";
import { createRunFiles, maskedFiles, type RunFileInfo, type RunFileKeeper } from "./run-files.js";
import { createRunId } from "./run-id.js";
import {
  addItem,
  callOptional,
  currentInput,
  endCalls,
  isoTime,
  letGo,
  RunEnded,
  type RunState,
  readCellValues,
  systemClock,
} from "./run-state.js";
import { runServiceRequests } from "./service-requests.js";
import { copyOf, snapshot } from "./snapshot.js";
import type { InputData, Item, OutputData, RunInput, RunRecord, RunTrigger, UploadedFile } from "./types.js";
import { runValidationRules } from "./validation.js";
import type { VaultStore } from "./vault.js";

export interface RunOptions {
  adapters: AdapterResolver;
  trigger: RunTrigger;
  /** Counts what of the definition the run reaches (`bass test --coverage`). */
  coverage?: CoverageRecorder | undefined;
  /** The run this one runs again, with trigger `rerun`. */
  rerunOf?: string | undefined;
  /** How `callint` runs another integration; absent, callint fails saying it cannot here. */
  callint?: CallintRunner | undefined;
  /** For a callint child: its parent's run, its depth in the chain, and the parent's namespace when sync. */
  parent?: { runId: string; depth: number; namespace: unknown } | undefined;
  /** Overrides the definition's `run_async` (callint's `mode`). */
  runAsync?: boolean | undefined;
  /** An async run's work waits for this too: its caller keeps the running record first (bass run). */
  startKept?: PromiseLike<unknown> | undefined;
  /** The most the run may take, whatever its definition says: what is left of a callint parent's time. */
  timeLeftMs?: number | undefined;
  /** The project's vaults, for open_vault. */
  vaults?: VaultStore | undefined;
  /** Keeps the run's files with its record; absent, they live only as long as the run. */
  files?: RunFileKeeper | undefined;
  /** How Python cells call systems and integrations from a worker thread (see RemoteCalls). */
  remote?: RemoteCalls | undefined;
  /** The worker pool's number for the task this run is part of (see src/pool/stuck-cells.ts). */
  poolTask?: number | undefined;
  /**
   * The run was stopped by this error where nothing could interrupt it (a cell stuck in native code, its
   * thread ended): it runs again from its input to this failure only, masks, failure hooks and
   * finally_hook, under `runId` where it had said its start.
   */
  stopped?: { error: BassError; runId?: string | undefined; startedAt: number } | undefined;
  cellTimeoutMs: number;
  /** The most bytes the output's payload may have (the project's `limits.output_bytes`); absent, no bound. */
  outputBytes?: number | undefined;
  /** The project's run time limit; a definition's own `timeout_ms` wins. */
  runTimeoutMs: number;
  /** Values from the environment: masked by value in the record. */
  secrets: readonly string[];
  clock?: () => Date;
}

export interface RunResult {
  runId: string;
  status: "success" | "failure";
  /** The live output, as the run left it: what serve sends. */
  output: OutputData;
  /** The output's payload as the JSON text serve sends, made when the output was checked; none for bytes. */
  outputJson?: string | undefined;
  /** The masked run history record. */
  record: RunRecord;
  /** Masks a copy of anything else bass prints or writes about this run (docs/reference.md#masks): recordings, logs. */
  mask<T>(value: T): T;
  /** The values the run masked (by its masks, or read as secrets): a callint parent masks them too. */
  maskedValues: readonly string[];
}

/** Runs one integration to its end (docs/reference.md#how-a-run-uses-these-keys). */
export async function runIntegration(
  integration: CompiledIntegration,
  input: RunInput,
  options: RunOptions,
): Promise<RunResult> {
  return startIntegration(integration, input, options).completion;
}

export interface StartedRun {
  runId: string;
  /** For an async integration, the record as it stands at the start (status `running`, docs/behaviour.md#bass-serve). */
  started: RunRecord | undefined;
  /** For an async integration, what the caller gets at once: 202 `{ run_id, status: "started" }`. */
  accepted: OutputData | undefined;
  /** Masks a copy of a value with what the run has masked by the time it returned (its INPUT masks, secrets). */
  mask<T>(value: T): T;
  completion: Promise<RunResult>;
}

/** Starts a run and returns at once; `completion` settles when the run has ended. */
export function startIntegration(
  integration: CompiledIntegration,
  input: RunInput,
  options: RunOptions,
): StartedRun {
  if (integration.definition.active === false) {
    throw new BassError(
      "INTEGRATION_INACTIVE",
      `integration ${integration.name} is not active (active: false in ${integration.file})`,
    );
  }
  const clock = options.clock ?? systemClock;
  const runTimeoutMs = Math.min(
    integration.definition.timeout_ms ?? options.runTimeoutMs,
    options.timeLeftMs ?? Number.POSITIVE_INFINITY,
  );
  const startedAt = Math.min(options.stopped?.startedAt ?? Number.POSITIVE_INFINITY, clock().getTime());
  const state: RunState = {
    id: options.stopped?.runId ?? createRunId(),
    integration,
    coverage: options.coverage,
    trigger: options.trigger,
    rerunOf: options.rerunOf,
    parentRun: options.parent?.runId,
    depth: options.parent?.depth ?? 0,
    // A stopped run's caller has its start already, or waits for its end.
    runAsync: !options.stopped && (options.runAsync ?? integration.definition.run_async === true),
    callint: options.callint,
    adapters: options.adapters,
    vaults: options.vaults,
    remote: options.remote,
    poolTask: options.poolTask,
    uploaded: input.files,
    files: undefined,
    cellDeadline: Number.POSITIVE_INFINITY,
    calls: [],
    holds: undefined,
    startKept: options.startKept,
    cellsEnded: 0,
    secrets: options.secrets,
    startedAt,
    startedText: isoTime(startedAt),
    namespace: Object.create(null),
    items: [],
    labels: [],
    failure: undefined,
    ended: false,
    maskedValues: new Set(),
    cellTimeoutMs: options.cellTimeoutMs,
    outputBytes: options.outputBytes ?? Number.POSITIVE_INFINITY,
    runDeadline: performance.now() + runTimeoutMs,
    abort: undefined,
    defaultPayload: undefined,
    clock,
  };
  const inputData = buildInput(integration, input);
  const output: OutputData = {
    status: 200,
    headers: {},
    payload: `Integration ${integration.name} completed successfully`,
  };
  state.namespace = createNamespace(state, inputData, output, options.parent?.namespace);
  // A run without a user records no `user`: its INPUT item stays as it was before users were known.
  const { user, ...withoutUser } = inputData;
  const recorded = user ? inputData : withoutUser;
  const inputItem = addItem(state, { kind: "INPUT", data: snapshot(recorded) as InputData }) as Extract<
    Item,
    { kind: "INPUT" }
  >;
  const scrub = () => createScrubber([...state.maskedValues, ...options.secrets]);
  // Runs at once up to its first wait: by then an async run's INPUT item is masked.
  const steps = runSteps(state, inputItem, options.adapters, runTimeoutMs, options.stopped?.error);
  // Only an async run shows its record before it ends.
  const started = state.runAsync ? maskRecord(buildRecord(state, "running", clock), scrub()) : undefined;
  const completion = steps.then(async () => {
    try {
      return await finish();
    } finally {
      endCalls(state);
    }
  });
  async function finish(): Promise<RunResult> {
    // Whatever a cell still held (an open it did not await), the run lets go of at its end.
    letGo(state);
    const files = await keepFiles(state, options.files);
    const { output: final, json, isDefault } = checkOutput(state);
    const scrubber = scrub();
    let outputJson = json;
    // The default failure output is masked, also where serve sends it: it may echo input in its details.
    if (isDefault) {
      scrubber(final.payload);
      outputJson = undefined;
    }
    addItem(state, { kind: "OUTPUT", data: recordedOutput(final) });
    const status = state.failure ? "failure" : "success";
    const built = buildRecord(state, status, clock);
    const record = maskRecord(files ? { ...built, files } : built, scrubber);
    const mask = <T>(value: T): T => scrubber(copyOf(value));
    const maskedValues = [...state.maskedValues];
    return { runId: state.id, status, output: final, outputJson, record, mask, maskedValues } as RunResult;
  }
  const accepted = started && { status: 202, headers: {}, payload: { run_id: state.id, status: "started" } };
  // What is known to be masked so far (the INPUT masks and secrets): enough for a log line of the request.
  const mask = <T>(value: T): T => scrub()(copyOf(value));
  return { runId: state.id, started, accepted, completion, mask };
}

type InputItem = Extract<Item, { kind: "INPUT" }>;

/** Steps 2 to 5 of docs/reference.md#how-a-run-uses-these-keys, in order; a step may return a promise to wait for. */
const steps: readonly ((state: RunState, inputItem: InputItem, adapters: AdapterResolver) => unknown)[] = [
  // The INPUT item keeps the payload as received, masked before any cell can fail or end the run, so the
  // record never holds what a mask hides (docs/reference.md#masks).
  (state, inputItem) => applyMasks(state, state.integration.inputMasks, inputItem.data.payload),
  // An async run answers at once (docs/behaviour.md#bass-serve): the rest of its work waits until the caller has the 202.
  (state) =>
    state.runAsync
      ? Promise.all([new Promise((resolve) => setImmediate(resolve)), state.startKept])
      : undefined,
  (state) => callOptional(state, state.integration.hooks.before_hook),
  (state) => {
    const masks = state.integration.inputMasks;
    if (masks.length === 0) return;
    // Masked again after before_hook, so that what a hook copied elsewhere is masked by value too.
    const payload = readCellValues(state, "input", () => snapshot(currentInput(state).payload));
    const short = applyMasks(state, masks, payload);
    if (short.length)
      enterFailure(
        state,
        "error",
        short.map((mask) => `mask ${mask.label} was applied fewer times than it must be`),
      );
  },
  async (state) => {
    const outcome = await runValidationRules(state, state.integration.inputRules);
    if (outcome.aborted) enterFailure(state, "validation", outcome.messages);
  },
  (state, _inputItem, adapters) => runServiceRequests(state, adapters),
];

/** Steps 2 to 7 of docs/reference.md#how-a-run-uses-these-keys. */
async function runSteps(
  state: RunState,
  inputItem: InputItem,
  adapters: AdapterResolver,
  runTimeoutMs: number,
  stoppedBy: BassError | undefined,
): Promise<void> {
  const hooks = stoppedBy ? hooksLeft(state.integration.hooks, stoppedBy.cell) : state.integration.hooks;
  try {
    if (stoppedBy) stopAgain(state, inputItem, stoppedBy);
    else await runPipeline(state, inputItem, adapters, runTimeoutMs);
    // The state hooks and finally_hook may always shape the answer: only the cell limit applies to them.
    state.runDeadline = Number.POSITIVE_INFINITY;
    try {
      await callOptional(state, state.failure ? hooks.on_failure_hook : hooks.on_success_hook);
    } catch (error) {
      failUnlessEnded(state, error);
    }
  } catch (error) {
    if (!(error instanceof RunEnded)) throw error;
  }
  state.runDeadline = Number.POSITIVE_INFINITY;
  try {
    await callOptional(state, hooks.finally_hook);
  } catch (error) {
    if (!(error instanceof RunEnded)) failOnError(state, error);
  }
}

type Hooks = CompiledIntegration["hooks"];

/**
 * The integration hooks a run stopped in `cell` has left, as a cell that timed out there would: after a
 * state hook, finally_hook; after finally_hook, none; else all.
 */
function hooksLeft(hooks: Hooks, cell: string | undefined): Hooks {
  if (cell === "finally_hook") return {};
  if (cell === "on_success_hook" || cell === "on_failure_hook") return { finally_hook: hooks.finally_hook };
  return hooks;
}

/** A stopped run's way to its failure: its INPUT masked, then the error that stopped it. */
function stopAgain(state: RunState, inputItem: InputItem, error: BassError): void {
  const [maskInput] = steps as [(state: RunState, inputItem: InputItem) => unknown];
  maskInput(state, inputItem);
  failOnError(state, error);
}

/** The steps up to the service requests, until one fails or the run's time is up. */
async function runPipeline(
  state: RunState,
  inputItem: InputItem,
  adapters: AdapterResolver,
  runTimeoutMs: number,
): Promise<void> {
  for (const step of steps) {
    if (state.failure) return;
    if (performance.now() > state.runDeadline) {
      const message = `the run ran past its time limit of ${runTimeoutMs} ms`;
      addItem(state, { kind: "FAILURE", error: { code: "run_timeout", message } });
      enterFailure(state, "timeout", [message]);
      return;
    }
    try {
      const pending = step(state, inputItem, adapters);
      if (pending instanceof Promise) await pending;
    } catch (error) {
      failUnlessEnded(state, error);
    }
  }
}

/** A cell's error fails the run; `end()` (RunEnded) goes on up to end it. */
function failUnlessEnded(state: RunState, error: unknown): void {
  if (error instanceof RunEnded) throw error;
  failOnError(state, error);
}

/**
 * Keeps the run's files (its request's, and those its cells wrote) with a masked value masked, and
 * says what was kept; none without a keeper (the project keeps no payloads). A keeper that fails leaves
 * a LOG item, not a failed run: the run's work is done.
 */
async function keepFiles(
  state: RunState,
  keeper: RunFileKeeper | undefined,
): Promise<RunFileInfo[] | undefined> {
  const files = (state.files ?? (state.uploaded && createRunFiles(state.uploaded)))?.all() ?? [];
  if (files.length === 0 || !keeper) return undefined;
  const masked = [...state.maskedValues, ...state.secrets];
  const scrubber = createScrubber(masked);
  const { kept, infos } = maskedFiles(files, masked, (text) => scrubber(text));
  try {
    await keeper.keep(state.id, kept);
    return infos;
  } catch (error) {
    addItem(state, {
      kind: "LOG",
      level: "warn",
      data: `the run's files were not kept: ${(error as Error).message}`,
    });
    return infos.map((info) => ({ ...info, kept: false }));
  }
}

function buildInput(integration: CompiledIntegration, input: RunInput): InputData {
  const endpoint = integration.definition.endpoints?.[0];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {}))
    setOwn(headers, name.toLowerCase(), String(value));
  return {
    payload: input.payload ?? {},
    method: (input.method ?? endpoint?.method ?? "POST").toUpperCase(),
    path: { ...input.path },
    params: { ...input.params },
    headers,
    fullpath: input.fullpath ?? fullpathOf(endpoint?.path ?? "/", input.path, input.params),
    user: input.user ?? null,
    ...(input.files ? { files: cellFiles(input.files) } : {}),
  };
}

/**
 * The files as a cell reads them: name, type and size, and `bytes()` and `text()` for the content. The
 * record keeps the first three (a snapshot leaves functions out), never the content.
 */
function cellFiles(files: Record<string, UploadedFile | UploadedFile[]>): InputData["files"] {
  const one = ({ name, type, size, bytes }: UploadedFile) =>
    ({
      name,
      type,
      size,
      bytes: () => new Uint8Array(bytes),
      text: () => new TextDecoder().decode(bytes),
    }) as unknown as UploadedFile;
  return Object.fromEntries(
    Object.entries(files).map(([field, file]) => [field, Array.isArray(file) ? file.map(one) : one(file)]),
  );
}

/**
 * The path and query a run without a request of its own stands for (bass run, bass test): the endpoint's
 * path with its `{param}`s filled in, and the query of `params`, as serve would have had them.
 */
function fullpathOf(
  pattern: string,
  path: Readonly<Record<string, string>> | undefined,
  params: Readonly<Record<string, unknown>> | undefined,
): string {
  const filled = pattern.replace(/\{([^}/]+)\}/g, (whole, name: string) =>
    path && Object.hasOwn(path, name) ? encodeURIComponent(String(path[name])) : whole,
  );
  const entries = Object.entries(params ?? {});
  if (entries.length === 0) return filled;
  const query = new URLSearchParams();
  for (const [name, value] of entries)
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  return `${filled}?${query}`;
}

function buildRecord(state: RunState, status: RunRecord["status"], clock: () => Date): RunRecord {
  const ended = status === "running" ? null : clock().getTime();
  return recordOf(state, status, ended);
}

/** What a record says of its run: the fields `recordOf` puts in the order a history record has them. */
interface RecordParts {
  id: string;
  integration: { name: string };
  trigger: RunTrigger;
  startedAt: number;
  startedText: string;
  labels: readonly string[];
  runAsync: boolean;
  rerunOf: string | undefined;
  parentRun: string | undefined;
  items: readonly Item[];
}

/** The one place a run's record is built, also for a run that stopped before its engine could end it. */
function recordOf(parts: RecordParts, status: RunRecord["status"], ended: number | null): RunRecord {
  return {
    id: parts.id,
    integration: parts.integration.name,
    status,
    trigger: parts.trigger,
    started_at: parts.startedText,
    ended_at: ended === null ? null : isoTime(ended),
    duration_ms: ended === null ? null : ended - parts.startedAt,
    labels: [...parts.labels],
    async: parts.runAsync,
    ...(parts.rerunOf === undefined ? {} : { rerun_of: parts.rerunOf }),
    ...(parts.parentRun === undefined ? {} : { parent_run: parts.parentRun }),
    items: [...parts.items],
  };
}

/** Why a run stopped without its engine ending it, with the status its caller gets. */
export interface RunStop {
  code: string;
  message: string;
  status: number;
  /** The cell that was stuck, where it is known: its label, file and line. */
  cell?: { cell: string; file: string; line: number } | undefined;
  /** When the run began, in ms since the epoch; default: now. */
  startedAt?: number | undefined;
}

/**
 * The record and the answer of a run that stopped outside the engine's reach: the thread running it ended
 * under it (out of memory, a stuck cell) or could not run it. No payloads: a FAILURE item says why (and
 * which cell was stuck, where known), an OUTPUT item what the caller got; the caller masks the message. `runId` is the run's own when it had said its start.
 */
export function stoppedRun(
  run: { integration: string; trigger: RunTrigger; rerunOf?: string | undefined },
  stop: RunStop,
  runId: string = createRunId(),
): { record: RunRecord; output: OutputData } {
  const now = Date.now();
  const at = isoTime(now);
  const startedAt = Math.min(stop.startedAt ?? now, now);
  const error = { code: stop.code, message: stop.message, ...stop.cell };
  const output = {
    status: stop.status,
    headers: {},
    payload: { error: { code: stop.code, message: stop.message, run_id: runId, details: [] } },
  };
  const record = recordOf(
    {
      id: runId,
      integration: { name: run.integration },
      trigger: run.trigger,
      startedAt,
      startedText: isoTime(startedAt),
      labels: [],
      runAsync: false,
      rerunOf: run.rerunOf,
      parentRun: undefined,
      items: [
        { seq: 1, at, kind: "FAILURE", error },
        { seq: 2, at, kind: "OUTPUT", data: output },
      ],
    },
    "failure",
    now,
  );
  return { record, output };
}

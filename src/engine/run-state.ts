import type { AdapterResolver } from "../adapters/adapter.js";
import { cellKey } from "../definition/cells.js";
import { BassError } from "../errors.js";
import { unknownTask } from "../python/watchdog.js";
import type { CallintRunner } from "./callint.js";
import type { CompiledCell, Namespace } from "./cell.js";
import type { CompiledIntegration } from "./compile.js";
import type { CoverageRecorder, CoverageSite } from "./coverage.js";
import type { CellCall } from "./realm.js";
import type { RemoteCalls } from "./remote.js";
import type { RunFiles } from "./run-files.js";
import type { InputData, Item, OutputData, RunTrigger, UploadedFile } from "./types.js";
import type { VaultStore } from "./vault.js";

/** Why a run is in failure; it picks the default failure output of docs/reference.md#how-a-run-uses-these-keys. */
export type FailureKind = "validation" | "service" | "timeout" | "error";

/** Everything one run changes as it goes; the pipeline steps share it. */
export interface RunState {
  id: string;
  integration: CompiledIntegration;
  /** Where definition coverage is counted, when the run is part of `bass test --coverage`. */
  coverage: CoverageRecorder | undefined;
  trigger: RunTrigger;
  rerunOf: string | undefined;
  /** The run that called this one with callint, and how deep in that chain it is (0: called from outside). */
  parentRun: string | undefined;
  depth: number;
  /** Whether it answers 202 at once: its definition's `run_async`, or callint's `mode`. */
  runAsync: boolean;
  /** How callint runs another integration here; absent where it cannot. */
  callint: CallintRunner | undefined;
  /** The systems of the run, for calladapter (the service requests get them as they run). */
  adapters: AdapterResolver | undefined;
  /** The project's vaults, for open_vault. */
  vaults: VaultStore | undefined;
  /** How a Python cell calls systems and integrations, blocked: only where it runs in a worker thread. */
  remote: RemoteCalls | undefined;
  /** The worker pool's number for the task this run is part of, which its Python cells report. */
  poolTask: number | undefined;
  /** The request's files, and the run's own once a cell opens or lists them (open_file). */
  uploaded: Record<string, UploadedFile | UploadedFile[]> | undefined;
  files: RunFiles | undefined;
  /** When the cell running now times out (a `performance.now()` time). */
  cellDeadline: number;
  /** The calls of its JavaScript cells: they expire when the run ends (see endCalls). */
  calls: CellCall[];
  /** An async run's work waits for this after its start (see RunOptions). */
  startKept: PromiseLike<unknown> | undefined;
  /** What the cell running now holds (vaults), let go when it ends; undefined while it holds nothing. */
  holds: (() => void)[] | undefined;
  /** Counts the cells that ended: a vault that opens after its cell ended is let go at once. */
  cellsEnded: number;
  /** Values from the environment: masked by value in all the run shows. */
  secrets: readonly string[];
  /** When the run started, in ms, and as ISO text (made at the start, while the time cache holds it). */
  startedAt: number;
  startedText: string;
  namespace: Namespace;
  items: Item[];
  labels: string[];
  failure: FailureKind | undefined;
  /** Set by `end()`: no further service request, rule or state hook runs; finally_hook still does. */
  ended: boolean;
  /** Original values that masks replaced, masked by value wherever they appear in the record. */
  maskedValues: Set<string>;
  cellTimeoutMs: number;
  /** The most bytes its output's payload may have (`limits.output_bytes`). */
  outputBytes: number;
  /** performance.now() time at which the whole run times out. */
  runDeadline: number;
  /** Made when an adapter first asks for the signal; aborted when the run times out waiting on an adapter. */
  abort: AbortController | undefined;
  /** The default failure payload the engine set, so that it can be masked if it is still the answer at the end. */
  defaultPayload: unknown;
  clock: () => Date;
}

/** The signal adapters get: aborted once the run is past its time limit. */
export function runSignal(state: RunState): AbortSignal {
  // Most adapters never look at the signal, and an AbortController costs more than the rest of a call.
  state.abort ??= new AbortController();
  if (performance.now() > state.runDeadline) state.abort.abort();
  return state.abort.signal;
}

/** Thrown after a cell that called `end()` returns: it unwinds the pipeline to finally_hook. */
export class RunEnded extends Error {
  override readonly name = "RunEnded";
}

/** The clock of a run that is given none. */
export const systemClock = (): Date => new Date();

/** The last millisecond isoTime formatted, and its text. */
const lastTime = { ms: Number.NaN, text: "" };

/** The run clock's time as ISO text; the system clock's text comes from isoTime. */
export function runTimestamp(state: RunState): string {
  if (state.clock !== systemClock) return state.clock().toISOString();
  return isoTime(Date.now());
}

/**
 * A time in ms as ISO text (`Date#toISOString`), made once per millisecond: a run's items mostly share one,
 * and formatting is the cost (bench/tricks.js, "timestamp cache").
 */
export function isoTime(ms: number): string {
  if (ms !== lastTime.ms) {
    lastTime.text = new Date(ms).toISOString();
    lastTime.ms = ms;
  }
  return lastTime.text;
}

type NewItem = Item extends infer T ? (T extends Item ? Omit<T, "seq" | "at"> : never) : never;

/** Appends an item to the run history, numbered in order. */
export function addItem(state: RunState, item: NewItem): Item {
  const full = { seq: state.items.length + 1, at: runTimestamp(state), ...item } as Item;
  state.items.push(full);
  return full;
}

/**
 * Runs a cell within the cell and run time limits and gives its value, awaited where the cell awaits or
 * its value is a promise; after a cell that called `end()`, throws (or rejects with) RunEnded.
 */
/** A condition's verdict as a boolean, counted for coverage as the way its branch went. */
export function took(state: RunState, cell: CompiledCell, verdict: unknown): boolean {
  const yes = Boolean(verdict);
  state.coverage?.took(state.integration.name, cell.site, yes);
  return yes;
}

/** Counts for coverage that the run reached a service request, field mapping, rule or mask. */
export function reached(state: RunState, site: CoverageSite): void {
  state.coverage?.reached(state.integration.name, site);
}

export function callCell(state: RunState, cell: CompiledCell): unknown {
  const deadline = Math.min(performance.now() + state.cellTimeoutMs, state.runDeadline);
  state.cellDeadline = deadline;
  state.coverage?.reached(state.integration.name, cell.site);
  const wasEnded = state.ended;
  let value: unknown;
  try {
    value = cell.run(state.namespace, deadline, state.poolTask, state.calls);
  } catch (error) {
    letGo(state);
    throw error;
  }
  // A cell's run gives a promise of bass's own where it waits: the cell's value is not read again here.
  if (value instanceof Promise) return settleCell(state, value, wasEnded);
  letGo(state);
  if (state.ended && !wasEnded) throw new RunEnded();
  return value;
}

async function settleCell(state: RunState, value: PromiseLike<unknown>, wasEnded: boolean): Promise<unknown> {
  try {
    const settled = await value;
    if (state.ended && !wasEnded) throw new RunEnded();
    return settled;
  } finally {
    letGo(state);
  }
}

/**
 * Expires the run's cell calls: promise work a cell left running (a loop of awaits, a callback of a call
 * it did not await) throws at its next deadline check instead of holding the thread past the run.
 */
export function endCalls(state: RunState): void {
  const { realm } = state.integration;
  for (const call of state.calls) realm.expire(call);
  state.calls.length = 0;
  realm.clearMatch();
}

/** What bass's reading of cells' values is known by to the pool's watch, as a cell is. */
const valuesKey = cellKey("cell values");

/**
 * Runs `work`, bass's own code that reads or writes values cells made (a mapping's value, a list to loop
 * over, the output), as a cell of its own (CellRealm.readValues): within a cell's time limit and marked for
 * the pool's watch, so that a getter, a Proxy's trap or a built-in a cell put there cannot hold the thread
 * past it. Past it, a CELL_TIMEOUT error for `what`.
 */
export function readCellValues<T>(state: RunState, what: string, work: () => T): T {
  const { realm } = state.integration;
  const deadline = performance.now() + state.cellTimeoutMs;
  const call = realm.createCall(deadline, state.poolTask ?? unknownTask, valuesKey);
  let result: T;
  try {
    result = realm.readValues(call, work);
  } catch (error) {
    if (!call.expired) throw error;
    result = undefined as T;
  }
  if (call.expired)
    throw new BassError(
      "CELL_TIMEOUT",
      `${state.integration.name}: ${what}: reading what a cell made ran past the cell time limit`,
      { cell: what },
    );
  return result;
}

/** Lets go of what the cell that ended held: another run may open its vaults now. */
export function letGo(state: RunState): void {
  state.cellsEnded++;
  const holds = state.holds;
  if (!holds) return;
  state.holds = undefined;
  for (const release of holds) release();
}

/** Runs an optional cell (see callCell); undefined when there is none. */
export function callOptional(state: RunState, cell: CompiledCell | undefined): unknown {
  return cell ? callCell(state, cell) : undefined;
}

/**
 * Binds loop variables for the duration of `work`, then unbinds them (docs/reference.md#cells-namespace-and-special-functions scopes); where `work` gives
 * a promise (a cell that awaits), once it settles.
 */
export function withBindings<T>(state: RunState, bindings: Record<string, unknown>, work: () => T): T {
  const namespace = state.namespace;
  // Plain loops: this runs around every hook, rule and mapping of a service call.
  const names: string[] = [];
  const saved: unknown[] = [];
  for (const name in bindings) {
    names.push(name);
    saved.push(namespace[name]);
    namespace[name] = bindings[name];
  }
  const unbind = () => {
    for (let index = 0; index < names.length; index++) namespace[names[index] as string] = saved[index];
  };
  let result: T;
  try {
    result = work();
  } catch (error) {
    unbind();
    throw error;
  }
  if (!(result instanceof Promise)) {
    unbind();
    return result;
  }
  return result.finally(unbind) as T;
}

/** The live output object, as the cells left it. */
export function currentOutput(state: RunState): OutputData {
  return state.namespace.output as OutputData;
}

/** The live input object. */
export function currentInput(state: RunState): InputData {
  return state.namespace.input as InputData;
}

import { isNativeError } from "node:util/types";
import type { CellForm } from "../definition/cell-syntax.js";
import { type CellRef, cellKey } from "../definition/cells.js";
import type { Position, ValuePath } from "../definition/value-path.js";
import { BassError, type BassErrorCode, errorMessage, runFailureCodes } from "../errors.js";
import { unknownTask } from "../python/watchdog.js";
import type { CoverageSite } from "./coverage.js";
import { timedOut } from "./deadlines.js";
import type { CellCall, CellRealm, Namespace } from "./realm.js";

export type { Namespace } from "./realm.js";

/**
 * A cell's code as the engine runs it (free names read from the namespace, deadline checks in loops), or
 * why it does not parse: plain data, so that it can be kept between processes (`prepareCell` makes it).
 */
export type PreparedCell =
  | { ok: true; form: CellForm; async: boolean; code: string }
  | { ok: false; message: string; line: number; column: number };

/** Prepares a cell's code for the names always in its namespace. */
export type PrepareCell = (code: string, namespaceNames: ReadonlySet<string>) => PreparedCell;

/** A cell compiled once per definition and run many times. */
export interface CompiledCell {
  label: string;
  /** What definition coverage counts this cell as (set where the definition is compiled). */
  site?: CoverageSite | undefined;
  /**
   * Runs the cell; a thrown error or a time-out becomes a BassError naming the cell, the file and the line.
   * A cell that awaits, or whose value is a promise, gives a promise of bass's own realm, which settles
   * the same way: what the cell gave is not read again to tell. Its call joins `calls`, the run's,
   * which expire when the run ends: promise work it leaves behind stops at its next check.
   */
  run(namespace: Namespace, deadline: number, task?: number, calls?: CellCall[]): unknown;
}

export interface CompileCellContext {
  integration: string;
  file: string;
  /** Names always present in the namespace (input, output, special functions, formula variables, loop variables). */
  namespaceNames: ReadonlySet<string>;
  locateInString(path: ValuePath, line: number, column: number): Position;
  realm: CellRealm;
}

/** Compiles a prepared cell into a plain function: free names read the namespace, loops check the deadline. */
export function compileCell(
  cell: CellRef,
  prepared: PreparedCell,
  context: CompileCellContext,
): CompiledCell {
  const at = (line: number, column = 0) =>
    context.locateInString(cell.path, line, column + (line === 1 ? (cell.offset ?? 0) : 0));
  if (!prepared.ok) {
    const where = at(prepared.line, prepared.column);
    throw new BassError("DEFINITION_INVALID", `${cell.label}: ${prepared.message}`, {
      position: { file: context.file, ...where },
    });
  }
  const filename = context.realm.engine.cellName("bass-cell");
  const compiled = context.realm.compile(prepared.code, prepared.form, prepared.async, filename);
  const stackLine = new RegExp(`${filename}:(\\d+):(\\d+)`);
  const key = cellKey(cell.label);
  const fail = (error: unknown, call: CellCall) =>
    toCellError(error, call, stackLine, (line) => at(line).line, cell.label, context);

  return {
    label: cell.label,
    run(namespace, deadline, task = unknownTask, calls) {
      const call = context.realm.createCall(deadline, task, key);
      calls?.push(call);
      // The outermost cell on the thread says how long it may hold it (a cell it calls keeps its deadline);
      // what bass then reads of its value is read within it too.
      return context.realm.readValues(call, () => {
        let value: unknown;
        try {
          value = compiled(namespace, call);
        } catch (error) {
          throw fail(error, call);
        }
        if (!isThenable(value)) return value;
        return settle(value, call, context.realm, filename).catch((error) =>
          Promise.reject(context.realm.readValues(call, () => fail(error, call))),
        );
      });
    },
  };
}

/** Whether a value is a promise, of any realm: a cell gives one when it awaits, or as its value. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * What a cell's promise settles to, within the cell's deadline: past it the call expires (its code still
 * running or yet to run throws at its next check) and the cell fails with a time-out.
 */
async function settle(
  value: PromiseLike<unknown>,
  call: CellCall,
  realm: CellRealm,
  filename: string,
): Promise<unknown> {
  const { deadlines, rejections } = realm.engine;
  const unwatch = rejections.watch(filename, call);
  try {
    const settled = await deadlines.within(value, call.deadline, () => realm.expire(call));
    if (settled === timedOut) throw new RangeError("the cell ran past its time limit");
    // Node reports a rejection nobody handled once the current turn is over.
    await new Promise((resolve) => setImmediate(resolve));
    const left = rejections.leftBy(call);
    if (left) {
      const reason = realm.readValues(call, () => readableMessage(left.reason));
      throw new Error(`a promise the cell started was rejected and nobody handled it: ${reason}`);
    }
    return settled;
  } finally {
    unwatch();
  }
}

/** Why the cell failed, as its code and the message's end: its limit once a check ended it, else what it threw. */
function failureOf(error: unknown, call: CellCall, memoryMb: number | undefined): [BassErrorCode, string] {
  if (call.heapFull)
    return [
      "CELL_MEMORY",
      `the cell grew its thread's memory by more than limits.cell_memory_mb (${memoryMb})`,
    ];
  if (call.expired) return ["CELL_TIMEOUT", "the cell ran past its time limit"];
  // A failure bass's side named (callint_depth) keeps its code through the realm.
  const code = readable(() => (error as { code?: unknown } | null)?.code);
  const named = runFailureCodes.has(code as BassErrorCode) ? (code as BassErrorCode) : "CELL_ERROR";
  return [named, readableMessage(error)];
}

/**
 * What a cell threw or left rejected, as text: its own getters and `toString` run (within the cell's
 * deadline, where the caller reads it so), and one that throws gives a text that says so.
 */
function readableMessage(error: unknown): string {
  const text = readable(() => (isNativeError(error) ? String(error.message) : errorMessage(error)));
  return text ?? "the cell threw a value that cannot be read as text";
}

function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function toCellError(
  error: unknown,
  call: CellCall,
  stackLine: RegExp,
  fileLine: (cellLine: number) => number,
  label: string,
  context: CompileCellContext,
): BassError {
  if (error instanceof BassError && error.cell) return error; // already placed by a nested cell
  // Line 1 of the compiled function is the strict-mode directive; the cell starts on line 2.
  const match = isNativeError(error) ? stackLine.exec(readable(() => error.stack) ?? "") : null;
  const throwLine =
    call.lastThrow !== undefined && call.lastThrow.value === error ? call.lastThrow.line : undefined;
  const cellLine = throwLine ?? (match ? Math.max(1, Number(match[1]) - 1) : 1);
  const line = fileLine(cellLine);
  const [code, message] = failureOf(error, call, context.realm.cellMemoryMb);
  return new BassError(code, `${context.integration}: ${label}: ${message}`, {
    position: { file: context.file, line, column: 1 },
    cell: label,
    cause: error,
  });
}

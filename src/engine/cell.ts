import type { CellForm } from "../definition/cell-syntax.js";
import type { CellRef } from "../definition/cells.js";
import type { Position, ValuePath } from "../definition/value-path.js";
import { BassError } from "../errors.js";

/** The names every cell of one run sees (SPEC §4.2): an object that inherits no name, one per run. */
export type Namespace = Record<string, unknown>;

/**
 * A cell's code as the engine runs it (free names read from the namespace, deadline checks in loops), or
 * why it does not parse: plain data, so that it can be kept between processes (`prepareCell` makes it).
 */
export type PreparedCell =
  | { ok: true; form: CellForm; code: string }
  | { ok: false; message: string; line: number; column: number };

/** Prepares a cell's code for the names always in its namespace. */
export type PrepareCell = (code: string, namespaceNames: ReadonlySet<string>) => PreparedCell;

/** A cell compiled once per definition and run many times. */
export interface CompiledCell {
  label: string;
  /** Runs the cell; a thrown error or a time-out becomes a BassError naming the cell, the file and the line. */
  run(namespace: Namespace, deadline: number): unknown;
}

export interface CompileCellContext {
  integration: string;
  file: string;
  /** Names always present in the namespace (input, output, special functions, formula variables, loop variables). */
  namespaceNames: ReadonlySet<string>;
  locateInString(path: ValuePath, line: number, column: number): Position;
}

// Cells are synchronous, so one clock serves them all: the running cell's deadline and a loop counter.
let currentDeadline = Number.POSITIVE_INFINITY;
let ticks = 0;
// Once the running cell is past its deadline every check throws, not every 1024th: a `catch` inside a loop
// would otherwise swallow the one throw and the loop would never end.
let expired = false;
let nextCellId = 0;

/** Called at the top of every loop body of a cell: an endless loop ends at the deadline instead of never. */
function tick(): void {
  if (expired || ((++ticks & 1023) === 0 && performance.now() > currentDeadline)) {
    expired = true;
    throw new BassError("CELL_TIMEOUT", "the cell ran past its time limit");
  }
}

/** The last value a cell's `throw` statement threw, with its line in the cell. */
let lastThrow: { value: unknown; line: number } | undefined;

function thrown(line: number, value: unknown): unknown {
  lastThrow = { value, line };
  return value;
}

/** A free name that is neither a built-in nor always in the namespace: present only if a cell kept it. */
function lookup(namespace: Namespace, name: string): unknown {
  if (name in namespace) return namespace[name];
  throw new ReferenceError(`${name} is not defined`);
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
  const id = nextCellId++;
  const { code } = prepared;
  const body =
    prepared.form === "expression"
      ? `"use strict";\nreturn (${code}\n);\n//# sourceURL=bass-cell-${id}`
      : `"use strict";\n${code}\n//# sourceURL=bass-cell-${id}`;
  const compiled = new Function("__ns", "__get", "__tick", "__thrown", body) as (
    ns: Namespace,
    get: typeof lookup,
    tick: () => void,
    thrownAt: typeof thrown,
  ) => unknown;
  const stackLine = new RegExp(`bass-cell-${id}:(\\d+):(\\d+)`);

  return {
    label: cell.label,
    run(namespace, deadline) {
      const outer = currentDeadline;
      const outerExpired = expired;
      currentDeadline = deadline;
      expired = false;
      try {
        lastThrow = undefined;
        return compiled(namespace, lookup, tick, thrown);
      } catch (error) {
        throw toCellError(error, stackLine, (line) => at(line).line, cell.label, context);
      } finally {
        currentDeadline = outer;
        expired = outerExpired;
      }
    },
  };
}

function toCellError(
  error: unknown,
  stackLine: RegExp,
  fileLine: (cellLine: number) => number,
  label: string,
  context: CompileCellContext,
): BassError {
  if (error instanceof BassError && error.cell) return error; // already placed by a nested cell
  const timeout = error instanceof BassError && error.code === "CELL_TIMEOUT";
  // The function's first two lines are its header and the third the strict-mode directive.
  const match = error instanceof Error ? stackLine.exec(error.stack ?? "") : null;
  const throwLine = lastThrow !== undefined && lastThrow.value === error ? lastThrow.line : undefined;
  const cellLine = throwLine ?? (match ? Math.max(1, Number(match[1]) - 3) : 1);
  const line = fileLine(cellLine);
  const message = timeout
    ? "the cell ran past its time limit"
    : error instanceof Error
      ? error.message
      : String(error);
  return new BassError(
    timeout ? "CELL_TIMEOUT" : "CELL_ERROR",
    `${context.integration}: ${label}: ${message}`,
    {
      position: { file: context.file, line, column: 1 },
      cell: label,
      cause: error,
    },
  );
}

import {
  type NameAt,
  type PythonCellFacts,
  type PythonRuntime,
  type PythonSyntaxError,
  pythonRuntime,
} from "../../python/runtime.js";
import { type PythonCellReading, readPythonCell } from "../../python/syntax/read-cell.js";
import { type CellRef, listCells, loopVariables } from "../cells.js";
import type { LoadedDefinition } from "../load.js";
import { objectItems } from "../object-items.js";
import type { Definition } from "../types.js";
import { listKnown } from "./list-known.js";
import type { Report } from "./report.js";

const loopNames: ReadonlySet<string> = new Set(loopVariables);
/** Modules that reach the JavaScript world Pyodide runs in: the host's, not the cell's. */
const hostModules: ReadonlySet<string> = new Set(["js", "pyodide", "pyodide_js", "_pyodide"]);

/**
 * A Python definition's cells: syntax (CPython's message, at the file's line and column), loop variables
 * out of scope, unknown formula variables and value mapping sets, as for JavaScript cells. Each cell is
 * read without CPython where bass can vouch for what CPython would find (readPythonCell), the others by
 * CPython itself. False, with nothing said, where a cell needs CPython and it is not loaded in this thread.
 */
export function lintPythonCells(loaded: LoadedDefinition, report: Report): boolean {
  const runtime = pythonRuntime();
  const definition = loaded.source.value as Definition;
  const toFile = (cell: CellRef, line: number, column: number) =>
    loaded.source.locateInString(cell.path, line, column - 1 + (line === 1 ? (cell.offset ?? 0) : 0));
  const analysed: { cell: CellRef; facts: PythonCellFacts }[] = [];
  const errors: { cell: CellRef; error: PythonSyntaxError }[] = [];
  for (const cell of listCells(definition)) {
    const reading = readPythonCell(cell.code) ?? (runtime && readByCPython(runtime, cell.code));
    if (!reading) return false;
    if ("error" in reading) errors.push({ cell, error: reading.error });
    else analysed.push({ cell, facts: reading.facts });
  }
  for (const { cell, error } of errors)
    report("cell-syntax", `${cell.label}: ${error.message}`, toFile(cell, error.line, error.column));
  const known: KnownNames = {
    formulaVariables: new Set(
      objectItems(definition.service_requests).map(([request]) => request.formula_variable),
    ),
    setNames: new Set(objectItems(definition.value_mapping_sets).map(([set]) => set.name)),
    kept: new Set(analysed.flatMap(({ facts }) => facts.kept)),
  };
  for (const { cell, facts } of analysed)
    reportCell(cell, facts, known, report, ([, line, column]) => toFile(cell, line, column));
  return true;
}

function readByCPython(runtime: PythonRuntime, code: string): PythonCellReading {
  const error = runtime.syntaxError(code);
  return error ? { error } : { facts: runtime.facts(code) };
}

/** The names a definition's cells may use: formula variables, value mapping sets and names kept by a cell. */
interface KnownNames {
  formulaVariables: ReadonlySet<string>;
  setNames: ReadonlySet<string>;
  kept: ReadonlySet<string>;
}

function reportCell(
  cell: CellRef,
  facts: PythonCellFacts,
  known: KnownNames,
  report: Report,
  at: (name: NameAt) => { line: number; column: number },
): void {
  const where = cell.bindings.length ? `; here only ${cell.bindings.join(", ")} are bound` : "";
  const unbound = facts.free.filter(
    ([name]) => loopNames.has(name) && !cell.bindings.includes(name as never),
  );
  for (const name of unbound)
    report("loop-variable-scope", `${cell.label}: ${name[0]} is not bound in this cell${where}`, at(name));
  const unknown = facts.formula_variables.filter(
    ([name]) => !known.formulaVariables.has(name) && !known.kept.has(name),
  );
  for (const name of unknown)
    report(
      "unknown-formula-variable",
      `${cell.label}: no service request has formula variable ${JSON.stringify(name[0])}${listKnown(known.formulaVariables, "formula variables")}`,
      at(name),
    );
  for (const name of facts.imports.filter(([module]) => hostModules.has(module)))
    report(
      "cell-forbidden",
      `${cell.label}: cells cannot import ${name[0]}: it reaches the JavaScript world bass runs in, not the cell's`,
      at(name),
    );
  for (const name of facts.map_value) {
    if (known.setNames.has(name[0])) continue;
    report(
      "unknown-value-mapping-set",
      `${cell.label}: no value mapping set ${JSON.stringify(name[0])} in this integration${listKnown(known.setNames)}`,
      at(name),
    );
  }
}

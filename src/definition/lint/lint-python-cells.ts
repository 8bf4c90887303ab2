import { readFileSync } from "node:fs";
import { pythonRuntime } from "../../python/runtime.js";
import { listCells } from "../cells.js";
import type { LoadedDefinition } from "../load.js";
import type { Definition } from "../types.js";
import type { Report } from "./report.js";

/**
 * Syntax of a Python definition's cells, by CPython's own parser: its message, at the file's line and
 * column. Opening a project with Python definitions loads the runtime first; without it, nothing is said.
 */
export function lintPythonCells(loaded: LoadedDefinition, report: Report): void {
  const runtime = pythonRuntime();
  if (!runtime) return;
  for (const cell of listCells(loaded.source.value as Definition)) {
    const error = runtime.syntaxError(cell.code);
    if (!error) continue;
    const column = error.column - 1 + (error.line === 1 ? (cell.offset ?? 0) : 0);
    report(
      "cell-syntax",
      `${cell.label}: ${error.message}`,
      loaded.source.locateInString(cell.path, error.line, column),
    );
  }
}

const pythonLine = /^language:\s*["']?python["']?\s*(?:#.*)?$/m;

/** Whether a definition file says `language: python`, read before it is parsed (a file that cannot be read says no). */
export function saysPython(path: string): boolean {
  try {
    return pythonLine.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

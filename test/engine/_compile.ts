import type { CellRef } from "../../src/definition/cells.js";
import { parseYamlSource } from "../../src/definition/yaml-source.js";
import { compileCell } from "../../src/engine/cell.js";
import { prepareCell } from "../../src/engine/cell-prepare.js";
import { createEngine } from "../../src/engine/engine.js";
import { createRunRealm } from "../../src/engine/namespace.js";

export interface CompileHookOptions {
  /** The namespace's names the cell may read. */
  names?: readonly string[];
  /** What a cell may grow its thread's memory by (`limits.cell_memory_mb`); unset, unbounded. */
  cellMemoryMb?: number;
}

/** Compiles `code` as the before_hook of a definition whose file starts with `name: a` on line 1. */
export function compileHook(code: string, options: CompileHookOptions = {}) {
  const names = new Set(options.names ?? ["input", "output", "keep"]);
  const text = `name: a\nbefore_hook: |\n${code
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}\n`;
  const { source } = parseYamlSource("a.yaml", text);
  const cell: CellRef = { path: ["before_hook"], label: "before_hook", code: `${code}\n`, bindings: [] };
  return compileCell(cell, prepareCell(cell.code, names), {
    integration: "a",
    file: "a.yaml",
    namespaceNames: names,
    locateInString: source.locateInString,
    realm: createRunRealm(createEngine(), undefined, options.cellMemoryMb),
  });
}

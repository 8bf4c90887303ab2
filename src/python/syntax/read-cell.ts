import type { NameAt, PythonCellFacts } from "../runtime.js";
import { builtinNames } from "./builtin-names.js";
import { NotSure } from "./not-sure.js";
import { type Expr, type NameExpr, type ParsedCell, parseCell } from "./parse.js";
import { tokenize } from "./tokens.js";

/**
 * What lint needs of a Python cell, found without CPython: the same facts, at the same places, as
 * CPython's `ast` gives (cell_facts in cells.py). Undefined where this reading cannot vouch that CPython
 * compiles the cell (a syntax error among them): CPython then reads it, and says what is wrong.
 */
export function readPythonCell(code: string): PythonCellFacts | undefined {
  try {
    return factsOf(parseCell(tokenize(code)), lineStarts(code), code);
  } catch (error) {
    if (error instanceof NotSure) return undefined;
    throw error;
  }
}

function factsOf(parsed: ParsedCell, starts: number[], code: string): PythonCellFacts {
  const assigned = new Set(parsed.bound);
  for (const name of parsed.names) if (name.bound) assigned.add(name.id);
  const known = (name: string) => assigned.has(name) || builtinNames.has(name);
  const at = (name: string, start: number): NameAt => [name, ...position(code, starts, start)];
  const nameAt = ({ id, start }: NameExpr) => at(id, start);
  const calls = parsed.calls.filter(({ callee }) => !assigned.has(callee.id));
  return {
    free: parsed.names.filter((name) => !name.bound && !known(name.id)).map(nameAt),
    formula_variables: parsed.formulaReads.filter((name) => !known(name.id)).map(nameAt),
    kept: calls.filter(({ callee }) => callee.id === "keep").flatMap(keptNames),
    map_value: calls
      .filter(({ callee, args }) => callee.id === "map_value" && args.length > 0)
      .flatMap(({ args: [set] }) => (set?.kind === "string" ? [at(set.value, set.start)] : notSureOf(set))),
    imports: parsed.imports.map(({ module, start }) => at(module, start)),
  };
}

/** keep()'s keyword names and the string keys of the dicts given to it. */
function keptNames({ args, keywords }: { args: Expr[]; keywords: string[] }): string[] {
  const keys = args.flatMap((arg) => (arg.kind === "dict" ? arg.keys : []));
  return [...keywords, ...keys.flatMap((key) => (key?.kind === "string" ? [key.value] : []))];
}

/** map_value's set given as a number, None or bytes: CPython would name it by its `str()`. */
function notSureOf(set: Expr | undefined): NameAt[] {
  if (set?.kind === "constant") throw new NotSure();
  return [];
}

function lineStarts(code: string): number[] {
  const starts = [0];
  for (let index = code.indexOf("\n"); index !== -1; index = code.indexOf("\n", index + 1))
    starts.push(index + 1);
  return starts;
}

/** 1-based line and column of an offset, the column counted in UTF-8 bytes as CPython counts it. */
function position(code: string, starts: number[], offset: number): [line: number, column: number] {
  let line = starts.length - 1;
  while ((starts[line] as number) > offset) line--;
  const before = code.slice(starts[line], offset);
  return [line + 1, Buffer.byteLength(before) + 1];
}

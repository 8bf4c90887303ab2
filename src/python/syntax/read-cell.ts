import type { NameAt, PythonCellFacts, PythonSyntaxError } from "../runtime.js";
import { builtinNames } from "./builtin-names.js";
import { type KnownSyntaxError, NotSure } from "./not-sure.js";
import { type Expr, type NameExpr, type ParsedCell, parseCell } from "./parse.js";
import { tokenize } from "./tokens.js";

/** A Python cell as read without CPython: what lint needs of it, or its syntax error. */
export type PythonCellReading = { facts: PythonCellFacts } | { error: PythonSyntaxError };

/**
 * What lint needs of a Python cell, found without CPython: the same facts, at the same places, as
 * CPython's `ast` gives (cell_facts in cells.py), or a syntax error CPython would give in the same words
 * at the same place (a missing `:`, a body not indented). Undefined where this reading cannot vouch for
 * CPython's answer: CPython then reads the cell.
 */
export function readPythonCell(code: string): PythonCellReading | undefined {
  const starts = lineStarts(code);
  try {
    return { facts: factsOf(parseCell(tokenize(code)), starts, code) };
  } catch (error) {
    if (!(error instanceof NotSure)) throw error;
    return error.known && { error: syntaxError(error.known, starts, code) };
  }
}

function syntaxError({ message, at }: KnownSyntaxError, starts: number[], code: string): PythonSyntaxError {
  const [line, column] = position(code, starts, at, "characters");
  return { message: message((offset) => position(code, starts, offset)[0]), line, column };
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

/**
 * 1-based line and column of an offset, the column counted as CPython counts it: in UTF-8 bytes in its
 * tree's nodes, in characters in a SyntaxError.
 */
function position(
  code: string,
  starts: number[],
  offset: number,
  unit: "bytes" | "characters" = "bytes",
): [line: number, column: number] {
  let line = starts.length - 1;
  while ((starts[line] as number) > offset) line--;
  const before = code.slice(starts[line], offset);
  return [line + 1, (unit === "bytes" ? Buffer.byteLength(before) : [...before].length) + 1];
}

import { type Node, type Options, type Program, parse } from "acorn";

/** How a cell yields its value (docs/reference.md#cells-namespace-and-special-functions): a one-line expression, or a function body that `return`s. */
export type CellForm = "expression" | "body";

export type ParsedCell =
  | {
      ok: true;
      form: CellForm;
      program: Program;
      /** Where the cell's own text starts in the parsed source: node offsets minus this index into the cell. */
      codeOffset: number;
      toCellPosition(node: Node): CellPosition;
    }
  | { ok: false; message: string; position: CellPosition };

/** 1-based line and 0-based column inside the cell's own text. */
export interface CellPosition {
  line: number;
  column: number;
}

// No `locations`: line and column are worked out from offsets only for the few nodes that are reported.
// A cell may await (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host): one that does runs as an async function.
const bodyOptions: Options = {
  ecmaVersion: "latest",
  sourceType: "script",
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
};
const expressionOptions: Options = { ...bodyOptions, preserveParens: true };

// Cells run in strict mode; the directive sits on its own line so that only line numbers shift.
const strictPrefix = '"use strict";\n';

// `validate` and the compiler both parse every cell, and projects repeat cells; the trees are only read.
const parsedCells = new Map<string, ParsedCell>();
const parsedCellsLimit = 10_000;

/** Parses a cell as it will run: strict mode, expression form when it is one line that is an expression. */
export function parseCell(code: string): ParsedCell {
  let parsed = parsedCells.get(code);
  if (!parsed) {
    if (parsedCells.size >= parsedCellsLimit) parsedCells.clear();
    parsed = parseCellOnce(code);
    parsedCells.set(code, parsed);
  }
  return parsed;
}

function parseCellOnce(code: string): ParsedCell {
  // The untrimmed code is parsed so that node positions count the white space around it.
  if (!code.trim().includes("\n")) {
    const expression = parseExpression(code);
    if (expression) return expression;
  }
  const source = strictPrefix + code;
  try {
    const program = parse(source, bodyOptions);
    return {
      ok: true,
      form: "body",
      program,
      codeOffset: strictPrefix.length,
      toCellPosition: (node) => positionAt(source, node.start, 0),
    };
  } catch (error) {
    const { pos = 0, message } = error as SyntaxError & { pos?: number };
    // "Unexpected token" at the end of input sits past the last line; point at the end of the code instead.
    const at = Math.min(pos, strictPrefix.length + code.trimEnd().length);
    return { ok: false, message: message.replace(/ \(\d+:\d+\)$/, ""), position: positionAt(source, at, 0) };
  }
}

/** The cell as an expression, or undefined when it is not exactly one expression. */
function parseExpression(code: string): ParsedCell | undefined {
  const source = `${strictPrefix}(${code}\n)`;
  try {
    const program = parse(source, expressionOptions);
    const statement = program.body[1];
    const isWhole =
      program.body.length === 2 &&
      statement?.type === "ExpressionStatement" &&
      statement.expression.type === "ParenthesizedExpression" &&
      statement.expression.start === strictPrefix.length;
    if (!isWhole) return undefined;
    return {
      ok: true,
      form: "expression",
      codeOffset: strictPrefix.length + 1,
      program,
      toCellPosition: (node) => positionAt(source, node.start, 1),
    };
  } catch {
    return undefined;
  }
}

/** The cell position of an offset in the wrapped source, whose first line is the strict-mode directive. */
function positionAt(source: string, offset: number, firstLineColumns: number): CellPosition {
  const before = source.slice(strictPrefix.length, Math.max(offset, strictPrefix.length));
  const line = before.split("\n").length;
  const column = before.length - (before.lastIndexOf("\n") + 1);
  return { line, column: line === 1 ? Math.max(0, column - firstLineColumns) : column };
}

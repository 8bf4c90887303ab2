import { type Node, type Options, type Program, parse } from "acorn";

/** How a cell yields its value (SPEC §4.1): a one-line expression, or a function body that `return`s. */
export type CellForm = "expression" | "body";

export type ParsedCell =
  | { ok: true; form: CellForm; program: Program; toCellPosition(node: Node): CellPosition }
  | { ok: false; message: string; position: CellPosition };

/** 1-based line and 0-based column inside the cell's own text. */
export interface CellPosition {
  line: number;
  column: number;
}

const options: Options = {
  ecmaVersion: "latest",
  sourceType: "script",
  allowReturnOutsideFunction: true,
  locations: true,
  preserveParens: true,
};

// Cells run in strict mode; the directive sits on its own line so only line numbers shift.
const strictPrefix = '"use strict";\n';

/** Parses a cell as it will run: strict mode, expression form when it is one line that is an expression. */
export function parseCell(code: string): ParsedCell {
  const trimmed = code.trim();
  if (!trimmed.includes("\n")) {
    const expression = parseExpression(trimmed);
    if (expression) return expression;
  }
  try {
    const program = parse(strictPrefix + code, options);
    return { ok: true, form: "body", program, toCellPosition: (node) => shift(node.loc?.start, 0) };
  } catch (error) {
    const { loc, message } = error as SyntaxError & { loc?: { line: number; column: number } };
    return { ok: false, message: message.replace(/ \(\d+:\d+\)$/, ""), position: shift(loc, 0) };
  }
}

/** The cell as an expression, or undefined when it is not exactly one expression. */
function parseExpression(code: string): ParsedCell | undefined {
  try {
    const program = parse(`${strictPrefix}(${code}\n)`, options);
    const statement = program.body[1];
    const isWhole =
      program.body.length === 2 &&
      statement?.type === "ExpressionStatement" &&
      statement.expression.type === "ParenthesizedExpression" &&
      statement.expression.start === strictPrefix.length;
    if (!isWhole) return undefined;
    return { ok: true, form: "expression", program, toCellPosition: (node) => shift(node.loc?.start, 1) };
  } catch {
    return undefined;
  }
}

function shift(loc: { line: number; column: number } | undefined, firstLineColumns: number): CellPosition {
  if (!loc) return { line: 1, column: 0 };
  const line = Math.max(1, loc.line - 1);
  return { line, column: line === 1 ? Math.max(0, loc.column - firstLineColumns) : loc.column };
}

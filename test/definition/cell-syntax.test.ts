import type { Identifier, Node } from "acorn";
import { simple } from "acorn-walk";
import { describe, expect, it } from "vitest";
import { type CellForm, type CellPosition, parseCell } from "../../src/definition/cell-syntax.js";

/** The first identifier called `name` in a parsed cell. */
function findIdentifier(program: Node, name: string): Identifier {
  const found: Identifier[] = [];
  simple(program, { Identifier: (node) => void (node.name === name && found.push(node)) });
  if (!found[0]) throw new Error(`no identifier ${name}`);
  return found[0];
}

describe("parseCell", () => {
  it.each<[string, CellForm]>([
    ["input.payload.x", "expression"],
    ["a, b", "expression"],
    ["{ a: 1 }", "expression"],
    ["x = 1", "expression"],
    ["  input.payload.x \n", "expression"],
    ["const x = 1", "body"],
    ["return 1", "body"],
    ["if (a) b()", "body"],
    ["a = 1;", "body"],
    ["a; b", "body"],
    ["x = 1\nreturn x", "body"],
    ["a\n+ b", "body"],
  ])("parses %j as %s", (code, form) => {
    expect(parseCell(code)).toMatchObject({ ok: true, form });
  });

  it.each<[string, string, CellPosition]>([
    ["a); (b", "Unexpected token", { line: 1, column: 1 }],
    ["a +", "Unexpected token", { line: 1, column: 3 }],
    ["x = 1\ny = (", "Unexpected token", { line: 2, column: 5 }],
    ["  \n  a + )", "Unexpected token", { line: 2, column: 6 }],
    ["with (a) {}", "'with' in strict mode", { line: 1, column: 0 }],
    ["x = 1\n\nwith (a) {}", "'with' in strict mode", { line: 3, column: 0 }],
    ["y = 010", "Invalid number", { line: 1, column: 4 }],
    ["let = 1", "The keyword 'let' is reserved", { line: 1, column: 0 }],
  ])("reports %j as a syntax error in the cell", (code, message, position) => {
    expect(parseCell(code)).toEqual({ ok: false, message, position });
  });

  it.each<[string, CellPosition]>([
    ["foo.bar", { line: 1, column: 0 }],
    ["x + foo", { line: 1, column: 4 }],
    ["  x + foo", { line: 1, column: 6 }],
    ["\n  foo", { line: 2, column: 2 }],
    ["x; foo", { line: 1, column: 3 }],
    ["a = 1\n\n  foo()", { line: 3, column: 2 }],
  ])("places the identifier foo of %j in the cell", (code, position) => {
    const parsed = parseCell(code);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.toCellPosition(findIdentifier(parsed.program, "foo"))).toEqual(position);
  });
});

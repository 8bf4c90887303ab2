import type { Identifier, Node, Pattern } from "acorn";
import { ancestor, simple } from "acorn-walk";
import { parseCell } from "../definition/cell-syntax.js";
import type { CellRef } from "../definition/cells.js";
import type { Position, ValuePath } from "../definition/value-path.js";
import { BassError } from "../errors.js";
import { cellGlobals } from "./globals.js";

/** The names every cell of one run sees (SPEC §4.2): an object that inherits no name, one per run. */
export type Namespace = Record<string, unknown>;

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

/** Compiles a cell into a plain function: free names read the namespace, loops check the deadline. */
export function compileCell(cell: CellRef, context: CompileCellContext): CompiledCell {
  const parsed = parseCell(cell.code);
  const at = (line: number, column = 0) =>
    context.locateInString(cell.path, line, column + (line === 1 ? (cell.offset ?? 0) : 0));
  if (!parsed.ok) {
    const where = at(parsed.position.line, parsed.position.column);
    throw new BassError("DEFINITION_INVALID", `${cell.label}: ${parsed.message}`, {
      position: { file: context.file, ...where },
    });
  }
  const id = nextCellId++;
  const code = rewriteCell(cell.code, parsed.program, parsed.codeOffset, context.namespaceNames);
  const body =
    parsed.form === "expression"
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

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The cell's code with free names read from the namespace and a deadline check at the top of every loop. */
function rewriteCell(
  code: string,
  program: Node,
  offset: number,
  namespaceNames: ReadonlySet<string>,
): string {
  const declared = declaredNames(program);
  const edits: Edit[] = [];
  const access = (name: string, safe: boolean) =>
    namespaceNames.has(name) || safe
      ? `__ns[${JSON.stringify(name)}]`
      : `__get(__ns, ${JSON.stringify(name)})`;
  const isFree = (name: string) => !declared.has(name) && !cellGlobals.has(name);
  const replace = (node: Node, text: string) =>
    edits.push({ start: node.start - offset, end: node.end - offset, text });
  const insert = (at: number, text: string) => edits.push({ start: at - offset, end: at - offset, text });

  ancestor(program, {
    Identifier(node, _state, ancestors) {
      const identifier = node as Identifier;
      if (!isFree(identifier.name)) return;
      const parent = ancestors.at(-2);
      const isTypeof = parent?.type === "UnaryExpression" && parent.operator === "typeof";
      const text = access(identifier.name, isTypeof);
      const shorthand = parent?.type === "Property" && parent.shorthand && parent.value === node;
      replace(node, shorthand ? `${identifier.name}: ${text}` : text);
    },
    // Assignment targets arrive here too; a namespace name assigned to (`output = {…}`) is written there.
    ...({
      VariablePattern(node: Identifier) {
        if (isFree(node.name) && namespaceNames.has(node.name))
          replace(node, `__ns[${JSON.stringify(node.name)}]`);
      },
    } as object),
    ...Object.fromEntries(
      ["ForStatement", "ForInStatement", "ForOfStatement", "WhileStatement", "DoWhileStatement"].map(
        (type) => [
          type,
          (node: Node & { body: Node }) => {
            const body = node.body;
            if (body.type === "BlockStatement") insert(body.start + 1, "__tick();");
            else {
              insert(body.start, "{__tick();");
              insert(body.end, "}");
            }
          },
        ],
      ),
    ),
    // Recursion never reaches a loop: function bodies check the deadline too.
    ...Object.fromEntries(
      ["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"].map((type) => [
        type,
        (node: Node & { body: Node }) => {
          const body = node.body;
          if (body.type === "BlockStatement") insert(body.start + 1, "__tick();");
          else {
            insert(body.start, "(__tick(), ");
            insert(body.end, ")");
          }
        },
      ]),
    ),
    // A thrown string or plain object has no stack: the throw says where it stands.
    ThrowStatement(node) {
      const argument = (node as Node & { argument: Node }).argument;
      const line = code.slice(0, node.start - offset).split("\n").length;
      insert(argument.start, `__thrown(${line}, `);
      insert(argument.end, ")");
    },
  });

  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let result = code;
  for (const edit of edits) result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/** Every name the cell declares anywhere: variables, functions, classes, parameters, catch bindings. */
function declaredNames(program: Node): Set<string> {
  const names = new Set<string>();
  const addPattern = (pattern: Pattern | null | undefined): void => {
    if (!pattern) return;
    switch (pattern.type) {
      case "Identifier":
        names.add(pattern.name);
        break;
      case "ObjectPattern":
        for (const property of pattern.properties)
          addPattern(property.type === "RestElement" ? property.argument : property.value);
        break;
      case "ArrayPattern":
        for (const element of pattern.elements) addPattern(element);
        break;
      case "RestElement":
        addPattern(pattern.argument);
        break;
      case "AssignmentPattern":
        addPattern(pattern.left);
        break;
    }
  };
  simple(program, {
    VariableDeclarator: (node) => addPattern(node.id),
    Function: (node) => {
      if (node.id) names.add(node.id.name);
      for (const param of node.params) addPattern(param);
    },
    CatchClause: (node) => addPattern(node.param),
    Class: (node) => {
      if (node.id) names.add(node.id.name);
    },
  });
  return names;
}

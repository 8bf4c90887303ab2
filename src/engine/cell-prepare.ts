import type { Identifier, Node, Pattern } from "acorn";
import { ancestor, simple } from "acorn-walk";
import { cellGlobals } from "../definition/cell-globals.js";
import { parseCell } from "../definition/cell-syntax.js";
import type { PreparedCell } from "./cell.js";

/**
 * Parses a cell and rewrites it the way the engine runs it: free names read the namespace (`__ns`, or
 * `__get` for a name only `keep` can add), loops and function bodies check the deadline (`__tick`), and a
 * `throw` says its line (`__thrown`).
 */
export function prepareCell(code: string, namespaceNames: ReadonlySet<string>): PreparedCell {
  const parsed = parseCell(code);
  if (!parsed.ok) return { ok: false, message: parsed.message, ...parsed.position };
  const reserved = reservedDeclaration(code, parsed.program, parsed.codeOffset);
  if (reserved) return { ok: false, ...reserved };
  return {
    ok: true,
    form: parsed.form,
    async: awaitsAtTop(parsed.program),
    code: rewriteCell(code, parsed.program, parsed.codeOffset, namespaceNames),
  };
}

/** The names the compiled code uses for its own (see realm.ts): a cell that declared one would replace it. */
const engineNames = new Set(["__ns", "__c", "__tick", "__resume", "__get", "__thrown"]);

/** Where the cell declares a name of the engine's compiled code, which it may not. */
function reservedDeclaration(
  code: string,
  program: Node,
  offset: number,
): { message: string; line: number; column: number } | undefined {
  let found: Identifier | undefined;
  const look = (pattern: Pattern | null | undefined) => {
    for (const name of patternIdentifiers(pattern)) if (engineNames.has(name.name)) found ??= name;
  };
  simple(program, {
    VariableDeclarator: (node) => look(node.id),
    Function: (node) => {
      if (node.id) look(node.id);
      for (const param of node.params) look(param);
    },
    CatchClause: (node) => look(node.param),
    Class: (node) => {
      if (node.id) look(node.id);
    },
  });
  if (!found) return undefined;
  const before = code.slice(0, found.start - offset).split("\n");
  return {
    message: `${found.name} is a name bass's compiled code uses: a cell cannot declare it, name it otherwise`,
    line: before.length,
    column: (before.at(-1) as string).length,
  };
}

/** Whether the cell itself awaits (not only functions it defines): it then runs as an async function. */
function awaitsAtTop(program: Node): boolean {
  let awaits = false;
  const atTop = (ancestors: Node[]) =>
    !ancestors.some((node) =>
      /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(node.type),
    );
  ancestor(program, {
    AwaitExpression(_node, _state, ancestors) {
      if (atTop(ancestors as Node[])) awaits = true;
    },
    ForOfStatement(node, _state, ancestors) {
      if ((node as Node & { await: boolean }).await && atTop(ancestors as Node[])) awaits = true;
    },
  });
  return awaits;
}

interface Edit {
  start: number;
  end: number;
  text: string;
  /** Where inserts at one place go, first to last: an outer opening, an inner one, an inner close, an outer. */
  rank: number;
}

const opensOuter = 0;
const opensInner = 1;
const closesInner = 2;
const closesOuter = 3;

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
    edits.push({ start: node.start - offset, end: node.end - offset, text, rank: opensInner });
  const insert = (at: number, text: string, rank = opensOuter) =>
    edits.push({ start: at - offset, end: at - offset, text, rank });

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
            if (body.type === "BlockStatement") insert(body.start + 1, "__tick(__c);");
            else {
              insert(body.start, "{__tick(__c);");
              insert(body.end, "}", closesOuter);
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
          if (body.type === "BlockStatement") insert(body.start + 1, "__tick(__c);");
          else {
            insert(body.start, "(__tick(__c), ");
            insert(body.end, ")", closesOuter);
          }
        },
      ]),
    ),
    // Code after an await goes on in a later turn: it checks its deadline, and is marked, as it resumes.
    AwaitExpression(node) {
      insert(node.start, "__resume(__c, ", opensInner);
      insert(node.end, ")", closesInner);
    },
    // A thrown string or plain object has no stack: the throw says where it stands.
    ThrowStatement(node) {
      const argument = (node as Node & { argument: Node }).argument;
      const line = code.slice(0, node.start - offset).split("\n").length;
      insert(argument.start, `__thrown(__c, ${line}, `);
      insert(argument.end, ")", closesOuter);
    },
  });

  // Applied from the end back: at one place, the insert that comes last in the text is applied first.
  edits.sort((a, b) => b.start - a.start || b.end - a.end || b.rank - a.rank);
  let result = code;
  for (const edit of edits) result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/** Every name the cell declares anywhere: variables, functions, classes, parameters, catch bindings. */
function declaredNames(program: Node): Set<string> {
  const names = new Set<string>();
  const add = (pattern: Pattern | null | undefined) => {
    for (const identifier of patternIdentifiers(pattern)) names.add(identifier.name);
  };
  simple(program, {
    VariableDeclarator: (node) => add(node.id),
    Function: (node) => {
      if (node.id) names.add(node.id.name);
      for (const param of node.params) add(param);
    },
    CatchClause: (node) => add(node.param),
    Class: (node) => {
      if (node.id) names.add(node.id.name);
    },
  });
  return names;
}

/** The identifiers a binding pattern declares. */
function patternIdentifiers(pattern: Pattern | null | undefined): Identifier[] {
  if (!pattern) return [];
  switch (pattern.type) {
    case "Identifier":
      return [pattern];
    case "ObjectPattern":
      return pattern.properties.flatMap((property) =>
        patternIdentifiers(property.type === "RestElement" ? property.argument : property.value),
      );
    case "ArrayPattern":
      return pattern.elements.flatMap((element) => patternIdentifiers(element));
    case "RestElement":
      return patternIdentifiers(pattern.argument);
    case "AssignmentPattern":
      return patternIdentifiers(pattern.left);
    default:
      return [];
  }
}

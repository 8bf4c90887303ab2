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
  return {
    ok: true,
    form: parsed.form,
    async: awaitsAtTop(parsed.program),
    code: rewriteCell(code, parsed.program, parsed.codeOffset, namespaceNames),
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
            if (body.type === "BlockStatement") insert(body.start + 1, "__tick(__c);");
            else {
              insert(body.start, "{__tick(__c);");
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
          if (body.type === "BlockStatement") insert(body.start + 1, "__tick(__c);");
          else {
            insert(body.start, "(__tick(__c), ");
            insert(body.end, ")");
          }
        },
      ]),
    ),
    // A thrown string or plain object has no stack: the throw says where it stands.
    ThrowStatement(node) {
      const argument = (node as Node & { argument: Node }).argument;
      const line = code.slice(0, node.start - offset).split("\n").length;
      insert(argument.start, `__thrown(__c, ${line}, `);
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

import type { Identifier, Literal, MemberExpression, Node, ObjectExpression, Program } from "acorn";
import { simple } from "acorn-walk";
import { cellGlobals } from "../cell-globals.js";
import { parseCell } from "../cell-syntax.js";
import { type CellRef, listCells, loopVariables, runVariableNames, specialFunctionNames } from "../cells.js";
import type { LoadedDefinition } from "../load.js";
import { objectItems } from "../object-items.js";
import type { Definition } from "../types.js";
import { listKnown } from "./list-known.js";
import type { Report } from "./report.js";

/** Names a cell sees besides formula variables, kept names and loop variables (docs/reference.md#cells-namespace-and-special-functions). */
const namespaceNames = new Set<string>([...runVariableNames, ...specialFunctionNames]);
const forbiddenNames = new Set(["require", "process", "module", "exports", "__dirname", "__filename"]);
/**
 * Node's own globals that a cell does not have (setTimeout, fetch, Buffer…): a cell sees JavaScript's
 * standard built-ins and its run's names, so a free reference to one of these fails when it runs.
 */
const hostGlobals = new Set(
  Object.getOwnPropertyNames(globalThis).filter(
    (name) => !cellGlobals.has(name) && !namespaceNames.has(name) && !forbiddenNames.has(name),
  ),
);
const loopNames = new Set<string>(loopVariables);

/** What the rules need of one cell's tree: the same for every cell with the same code. */
interface CellFacts {
  imports: Node[];
  /** Calls of eval or Function, and `.constructor.constructor`: ways to make code from a string. */
  codeFromStrings: Node[];
  /** Free references to a forbidden name or a loop variable, in source order. */
  suspects: Identifier[];
  /** `fv` of each `fv.request` / `fv.response` where `fv` is free and no name the namespace always has. */
  formulaVariables: Identifier[];
  kept: string[];
  /**
   * First arguments written as string literals of the special functions that name something (`map_value`'s
   * set, `callint`'s integration, `open_vault`'s vault, `import_module`'s module), where not shadowed.
   */
  named: Record<NamingFunction, Literal[]>;
}

/** The special functions whose first argument names a set, an integration, a vault or a module. */
const namingFunctions = ["map_value", "callint", "open_vault", "import_module"] as const;
type NamingFunction = (typeof namingFunctions)[number];

/** A `callint` of an integration named by a literal: whether the project has it is known only of a whole project. */
export interface CallintReference {
  name: string;
  cell: string;
  at: { line: number; column: number };
}

/** Syntax, forbidden globals, loop variables out of scope and unknown formula variables, for every cell. */
export function lintCells(
  loaded: LoadedDefinition,
  report: Report,
  noteCallint: (reference: CallintReference) => void = () => {},
  known: { vaults?: ReadonlySet<string> | undefined; modules?: ReadonlySet<string> | undefined } = {},
): void {
  const { vaults, modules } = known;
  const definition = loaded.source.value as Definition;
  const formulaVariables = new Set(
    objectItems(definition.service_requests).map(([request]) => request.formula_variable),
  );
  const setNames = new Set(objectItems(definition.value_mapping_sets).map(([set]) => set.name));
  const parsed = listCells(definition).map((cell) => ({ cell, result: parseCell(cell.code) }));

  const kept = new Set<string>();
  const analysed: AnalysedCell[] = [];
  for (const { cell, result } of parsed) {
    const toFile = (line: number, column: number) =>
      loaded.source.locateInString(cell.path, line, column + (line === 1 ? (cell.offset ?? 0) : 0));
    if (!result.ok) {
      const { line, column } = result.position;
      report("cell-syntax", `${cell.label}: ${result.message}`, toFile(line, column));
      continue;
    }
    const facts = collectFacts(result.program);
    for (const name of facts.kept) kept.add(name);
    analysed.push({
      cell,
      facts,
      at: (node) => toFile(result.toCellPosition(node).line, result.toCellPosition(node).column),
    });
  }

  for (const analysedCell of analysed) {
    reportCell(analysedCell, { formulaVariables, setNames, kept }, report);
    const { cell, facts, at } = analysedCell;
    for (const literal of facts.named.callint)
      noteCallint({ name: String(literal.value), cell: cell.label, at: at(literal) });
    const unknown = (names: ReadonlySet<string> | undefined, literals: Literal[]) =>
      names ? literals.filter((literal) => !names.has(String(literal.value))) : [];
    for (const literal of unknown(modules, facts.named.import_module))
      report(
        "unknown-module",
        `${cell.label}: the project file has no module ${JSON.stringify(String(literal.value))}${listKnown(modules ?? [])}`,
        at(literal),
      );
    for (const literal of unknown(vaults, facts.named.open_vault))
      report(
        "unknown-vault",
        `${cell.label}: the project file seeds no vault ${JSON.stringify(String(literal.value))}${listKnown(vaults ?? [])}`,
        at(literal),
      );
  }
}

/** The names a `keep({ … })` call's object literal adds. */
function keptNames(argument: ObjectExpression): string[] {
  return argument.properties.flatMap((property) => {
    if (property.type !== "Property") return [];
    if (property.key.type === "Identifier") return [property.key.name];
    return property.key.type === "Literal" ? [String(property.key.value)] : [];
  });
}

/** A parsed cell, its facts, and where a node of its tree is in the file. */
interface AnalysedCell {
  cell: CellRef;
  facts: CellFacts;
  at: (node: Node) => { line: number; column: number };
}

/** The names a definition's cells may use: formula variables, value mapping sets and names kept by a cell. */
interface KnownNames {
  formulaVariables: Set<string>;
  setNames: Set<string>;
  kept: Set<string>;
}

/** Reports what one cell's facts break: imports, forbidden or unbound names, unknown sets and variables. */
function reportCell({ cell, facts, at }: AnalysedCell, known: KnownNames, report: Report): void {
  for (const node of facts.imports)
    report("cell-forbidden", `${cell.label}: cells cannot import modules`, at(node));
  for (const node of facts.codeFromStrings)
    report(
      "cell-code-from-string",
      `${cell.label}: cells cannot make code from a string (eval, Function, .constructor.constructor); this fails when it runs`,
      at(node),
      { severity: "warning" },
    );
  for (const node of facts.suspects) reportSuspect({ cell, facts, at }, node, report);
  for (const literal of facts.named.map_value) {
    if (!known.setNames.has(String(literal.value))) {
      report(
        "unknown-value-mapping-set",
        `${cell.label}: no value mapping set ${JSON.stringify(String(literal.value))} in this integration${listKnown(known.setNames)}`,
        at(literal),
      );
    }
  }
  for (const name of facts.formulaVariables) {
    if (known.formulaVariables.has(name.name) || known.kept.has(name.name)) continue;
    report(
      "unknown-formula-variable",
      `${cell.label}: no service request has formula variable ${JSON.stringify(name.name)}${listKnown(known.formulaVariables, "formula variables")}`,
      at(name),
    );
  }
}

/** A free name a cell may not use: a forbidden one, or a loop variable this cell is not bound to. */
function reportSuspect(
  { cell, at }: AnalysedCell,
  node: AnalysedCell["facts"]["suspects"][number],
  report: Report,
): void {
  if (forbiddenNames.has(node.name)) {
    report(
      "cell-forbidden",
      `${cell.label}: cells have no ${node.name} (no modules, process or file system)`,
      at(node),
    );
  } else if (hostGlobals.has(node.name)) {
    report(
      "cell-forbidden",
      `${cell.label}: cells have no ${node.name}: it is one of Node's globals, and a cell sees JavaScript's standard built-ins and its run's names; this fails when it runs`,
      at(node),
      { severity: "warning" },
    );
  } else if (!cell.bindings.includes(node.name as never)) {
    const where = cell.bindings.length ? `; here only ${cell.bindings.join(", ")} are bound` : "";
    report("loop-variable-scope", `${cell.label}: ${node.name} is not bound in this cell${where}`, at(node));
  }
}

/** `x.constructor` or `x["constructor"]`. */
function isConstructor(member: MemberExpression): boolean {
  const { property } = member;
  return member.computed
    ? property.type === "Literal" && property.value === "constructor"
    : property.type === "Identifier" && property.name === "constructor";
}

/** `fv` of `fv.request`, `fv.response`, `fv[sridx].response`. */
function formulaVariableOf(member: MemberExpression): Identifier | undefined {
  const property = member.property;
  const key =
    property.type === "Identifier" && !member.computed
      ? property.name
      : property.type === "Literal"
        ? property.value
        : undefined;
  if (key !== "request" && key !== "response") return undefined;
  let object = member.object;
  if (object.type === "MemberExpression" && object.computed) object = object.object;
  return object.type === "Identifier" ? object : undefined;
}

// Parsed cells are cached and shared (projects repeat cells), and their trees only read: walk each once.
const factsByProgram = new WeakMap<Program, CellFacts>();

function collectFacts(program: Program): CellFacts {
  let facts = factsByProgram.get(program);
  if (!facts) {
    facts = walkFacts(program);
    factsByProgram.set(program, facts);
  }
  return facts;
}

function walkFacts(program: Program): CellFacts {
  const declared = new Set<string>();
  const references: Identifier[] = [];
  const members: MemberExpression[] = [];
  const imports: Node[] = [];
  const calls: Node[] = [];
  const kept: string[] = [];
  const named = Object.fromEntries(namingFunctions.map((name) => [name, [] as Literal[]])) as Record<
    NamingFunction,
    Literal[]
  >;
  // acorn-walk calls VariablePattern for every declared name, though its types do not list it.
  const declarations = {
    VariablePattern: (node: Identifier) => void declared.add(node.name),
  } as object;
  simple(program, {
    ...declarations,
    Identifier: (node) => void references.push(node),
    MemberExpression: (node) => void members.push(node),
    ImportExpression: (node) => void imports.push(node),
    NewExpression: (node) => void calls.push(node),
    CallExpression: (node) => {
      calls.push(node);
      const [argument] = node.arguments;
      if (node.callee.type !== "Identifier") return;
      const callee = node.callee.name;
      if (argument?.type === "Literal" && Object.hasOwn(named, callee))
        named[callee as NamingFunction].push(argument);
      if (callee === "keep" && argument?.type === "ObjectExpression") kept.push(...keptNames(argument));
    },
  });
  const isFree = (name: string) => !declared.has(name);
  const callsCode = (node: Node) => {
    const callee = (node as Node & { callee: Node }).callee;
    return (
      callee.type === "Identifier" &&
      ["eval", "Function"].includes((callee as Identifier).name) &&
      isFree((callee as Identifier).name)
    );
  };
  const constructorOfConstructor = (member: MemberExpression) =>
    isConstructor(member) && member.object.type === "MemberExpression" && isConstructor(member.object);
  return {
    imports,
    codeFromStrings: [...calls.filter(callsCode), ...members.filter(constructorOfConstructor)].sort(
      (a, b) => a.start - b.start,
    ),
    suspects: references.filter(
      (node) =>
        isFree(node.name) &&
        (forbiddenNames.has(node.name) || loopNames.has(node.name) || hostGlobals.has(node.name)),
    ),
    formulaVariables: members.flatMap((member) => {
      const name = formulaVariableOf(member);
      if (!name || !isFree(name.name)) return [];
      if (namespaceNames.has(name.name) || loopNames.has(name.name) || name.name in globalThis) return [];
      return [name];
    }),
    kept,
    named: Object.fromEntries(
      namingFunctions.map((name) => [name, isFree(name) ? named[name] : []]),
    ) as Record<NamingFunction, Literal[]>,
  };
}

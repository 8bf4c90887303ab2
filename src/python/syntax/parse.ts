import { type KnownSyntaxError, NotSure } from "./not-sure.js";
import type { Token, TokenType } from "./tokens.js";

/** A name where the code reads or binds it; `bound` once the parser knows it is a target. */
export interface NameExpr {
  kind: "name";
  id: string;
  start: number;
  bound?: boolean;
}

/** A string literal, or strings written one after another: its value and where the first begins. */
export interface StringExpr {
  kind: "string";
  value: string;
  start: number;
}

/** An expression, as far as targets and lint's facts need to know it. */
export type Expr =
  | NameExpr
  | StringExpr
  | { kind: "attribute" | "subscript" | "constant" | "named" | "other" }
  | { kind: "starred"; value: Expr }
  | { kind: "tuple" | "list"; elements: Expr[] }
  | { kind: "dict"; keys: (Expr | undefined)[] };

/** A call of `keep` or `map_value` by name: what lint reads of its arguments. */
export interface NamedCall {
  callee: NameExpr;
  args: Expr[];
  keywords: string[];
}

/** What one cell's code says about names, found by `parseCell`. */
export interface ParsedCell {
  /** Every name the code reads or binds, in order. */
  names: NameExpr[];
  /** Names bound other than as targets: defined, imported, parameters, `except … as`. */
  bound: Set<string>;
  /** `x` of each `x.request` and `x.response`. */
  formulaReads: NameExpr[];
  calls: NamedCall[];
  /** Each import's top-level module and where its statement begins. */
  imports: { module: string; start: number }[];
}

type TargetKind = "assign" | "single" | "del";

const augmented: ReadonlySet<string> = new Set("+= -= *= /= //= %= @= &= |= ^= >>= <<= **=".split(" "));
const comparisons: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">=", "in", "is", "not"]);
const binaryLevels: readonly ReadonlySet<string>[] = [
  new Set(["|"]),
  new Set(["^"]),
  new Set(["&"]),
  new Set(["<<", ">>"]),
  new Set(["+", "-"]),
  new Set(["*", "/", "//", "%", "@"]),
];
// What may follow a `yield` without a value.
const ends: ReadonlySet<string> = new Set([")", "]", "}", "=", ";", ":"]);
// CPython stops at 20 statically nested blocks; deeper code is left to it.
const maxBlocks = 15;
const maxUnpacked = 200;
// How deep the parser goes, in its steps (see deeper): CPython's compiler walks its tree recursively and
// gives up a few hundred levels down; each step here stands for at most a few of those.
const maxDepth = 80;
const other: Expr = { kind: "other" };

/**
 * Parses a cell's tokens as CPython parses a module (the grammar and the compiler's checks of targets,
 * arguments, parameters, `return`, `yield`, `break` and `continue`), throwing NotSure at anything it
 * would reject or that is left to it: `async`, `await`, `match`, `type`, `global`, `nonlocal`,
 * `except*`, type parameters, `from __future__`. A mistake whose words CPython's are known to be
 * carries them (`NotSure.known`).
 */
export function parseCell(tokens: Token[]): ParsedCell {
  const parser = new Parser(tokens);
  try {
    parser.module();
  } catch (error) {
    throw parser.endError(error) ?? error;
  }
  return parser.parsed;
}

class Parser {
  readonly parsed: ParsedCell = { names: [], bound: new Set(), formulaReads: [], calls: [], imports: [] };
  private pos = 0;
  private inFunction = false;
  private inLoop = false;
  private inDefinition = false;
  private lambdas = 0;
  private blocks = 0;
  /** The parser's steps into CPython's tree, and the deepest it has been within what it is measuring. */
  private depth = 0;
  private deepest = 0;
  // What a comprehension checks of its parts: the names walruses bind, and how many yields there are.
  private readonly walrusTargets: string[] = [];
  private yields = 0;

  constructor(private tokens: Token[]) {}

  module(): void {
    while (this.token.type !== "end") this.statement();
  }

  /**
   * The tokens' closing error where CPython would say it instead of a mistake the parser met (`mistake`):
   * one made past the error's `after`, counted from the token before the one the parser was at.
   */
  endError(mistake: unknown): NotSure | undefined {
    const last = this.tokens.at(-1);
    const at = this.tokens[Math.max(this.pos - 1, 0)]?.start ?? 0;
    if (!(mistake instanceof NotSure) || last?.error?.after === undefined || at <= last.error.after) return;
    return new NotSure(last.error);
  }

  private get token(): Token {
    const token = this.tokens[this.pos] as Token;
    if (token.error) throw new NotSure(token.error);
    return token;
  }

  /**
   * A syntax error in CPython's words; left to CPython where the tokens end in an error of the
   * tokenizer's, which CPython would find by reading on and say instead.
   */
  private known(error: KnownSyntaxError): NotSure {
    return new NotSure(this.tokens.at(-1)?.type === "error" ? undefined : error);
  }

  private is(text: string): boolean {
    const { type, text: actual } = this.token;
    return (type === "op" || type === "keyword") && actual === text;
  }

  private isOperator(operators: ReadonlySet<string>): boolean {
    const { type, text } = this.token;
    return (type === "op" || type === "keyword") && operators.has(text);
  }

  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.pos++;
    return true;
  }

  private expect(text: string): void {
    if (!this.accept(text)) throw new NotSure();
  }

  private expectName(): NameExpr {
    const { type, text, start } = this.token;
    if (type !== "name" || text === "__debug__") throw new NotSure();
    this.pos++;
    return { kind: "name", id: text, start };
  }

  private expectToken(type: TokenType): void {
    if (this.token.type !== type) throw new NotSure();
    this.pos++;
  }

  // Statements

  private statement(): void {
    const { type, text } = this.token;
    this.deeper(() => {
      if (type === "keyword" && compound.has(text)) this[compound.get(text) as CompoundMethod]();
      else if (this.is("@")) this.decorated();
      else this.simpleStatements();
    });
  }

  private simpleStatements(): void {
    do this.simple();
    while (this.accept(";") && this.token.type !== "newline");
    this.expectToken("newline");
  }

  private simple(): void {
    const { type, text } = this.token;
    const method = type === "keyword" ? simple.get(text) : undefined;
    if (!method) this.expressionStatement();
    else {
      this.pos++;
      this[method]();
    }
  }

  /**
   * A clause's `:` and body, for the clause `header` begins. A missing `:` at the line's end and a body
   * not indented are said in CPython's words (its `invalid_*` rules), the other mistakes left to it.
   */
  private block(
    header: Token,
    body: { inFunction?: boolean; inLoop?: boolean; inDefinition?: boolean } = {},
    weight = 1,
  ): void {
    if (!this.is(":")) {
      const { type, start } = this.token;
      if (type !== "newline") throw new NotSure();
      throw this.known({ message: () => "SyntaxError: expected ':'", at: start });
    }
    this.pos++;
    const outer = { inFunction: this.inFunction, inLoop: this.inLoop, inDefinition: this.inDefinition };
    Object.assign(this, body);
    this.blocks += weight;
    if (this.blocks > maxBlocks) throw new NotSure();
    this.deeper(() => (this.token.type === "newline" ? this.indentedBlock(header) : this.simpleStatements()));
    this.blocks -= weight;
    Object.assign(this, outer);
  }

  private indentedBlock(header: Token): void {
    this.expectToken("newline");
    const { type, start } = this.token;
    if (type === "indent") this.pos++;
    else if (type === "dedent" || type === "end") throw new NotSure();
    else {
      const what = clauseNames[header.text] ?? `'${header.text}' statement`;
      throw this.known({
        message: (lineOf) =>
          `IndentationError: expected an indented block after ${what} on line ${lineOf(header.start)}`,
        at: start,
      });
    }
    while (this.token.type !== "dedent") this.statement();
    this.pos++;
  }

  private take(): Token {
    return this.tokens[this.pos++] as Token;
  }

  /** An `else:` clause, if one follows. */
  private elseClause(): void {
    if (this.is("else")) this.block(this.take());
  }

  ifStatement(): void {
    // Each `elif` is an `if` within the `else` of the one before.
    const depth = this.depth;
    do {
      const header = this.take();
      this.namedExpression();
      this.block(header);
      this.depth++;
    } while (this.is("elif"));
    this.elseClause();
    this.depth = depth;
  }

  whileStatement(): void {
    const header = this.take();
    this.namedExpression();
    this.block(header, { inLoop: true });
    this.elseClause();
  }

  forStatement(): void {
    const header = this.take();
    this.check(this.targetList(), "assign");
    this.expect("in");
    this.starExpressions();
    this.block(header, { inLoop: true });
    this.elseClause();
  }

  // The compiler's static blocks a clause's body sits in, where it is more than one.
  tryStatement(): void {
    this.block(this.take(), {}, 2);
    if (!this.is("finally")) {
      if (!this.is("except")) throw new NotSure();
      while (this.is("except")) this.exceptClause(this.take());
      this.elseClause();
      if (!this.is("finally")) return;
    }
    this.block(this.take(), {}, 2);
  }

  private exceptClause(header: Token): void {
    if (this.is(":")) {
      this.block(header, {}, 3);
      // A bare `except:` must come last.
      if (this.is("except")) throw new NotSure();
      return;
    }
    if (this.is("*")) throw new NotSure();
    this.expression();
    if (this.accept("as")) this.parsed.bound.add(this.expectName().id);
    this.block(header, {}, 3);
  }

  withStatement(): void {
    const header = this.take();
    const parenthesized = this.parenthesizedItems();
    if (parenthesized) this.pos++;
    let items = 0;
    do {
      if (parenthesized && this.is(")")) break;
      this.expression();
      if (this.accept("as")) this.check(this.bitwiseOr(), "assign");
      items++;
    } while (this.accept(","));
    if (parenthesized) this.expect(")");
    // Each item is a block of its own to the compiler.
    this.block(header, {}, items);
  }

  /** Whether `with` is followed by `(item as target, …):` rather than by an expression in brackets. */
  private parenthesizedItems(): boolean {
    if (!this.is("(")) return false;
    let depth = 0;
    let named = false;
    for (let index = this.pos; index < this.tokens.length; index++) {
      const { type, text } = this.tokens[index] as Token;
      if (type === "keyword" && text === "as" && depth === 1) named = true;
      if (type !== "op") continue;
      if (text === "(" || text === "[" || text === "{") depth++;
      else if ((text === ")" || text === "]" || text === "}") && --depth === 0)
        return named && this.tokens[index + 1]?.text === ":";
    }
    return false;
  }

  functionDefinition(): void {
    const header = this.take();
    this.parsed.bound.add(this.expectName().id);
    this.expect("(");
    this.parameters(")", true);
    this.expect(")");
    if (this.accept("->")) this.annotation();
    this.block(header, { inFunction: true, inLoop: false, inDefinition: true });
  }

  classDefinition(): void {
    const header = this.take();
    this.parsed.bound.add(this.expectName().id);
    if (this.accept("(")) this.callArguments(false);
    this.block(header, { inFunction: false, inLoop: false, inDefinition: true });
  }

  private decorated(): void {
    while (this.accept("@")) {
      this.namedExpression();
      this.expectToken("newline");
    }
    if (this.is("def")) this.functionDefinition();
    else if (this.is("class")) this.classDefinition();
    else throw new NotSure();
  }

  notSure(): void {
    throw new NotSure();
  }

  pass(): void {}

  loopJump(): void {
    if (!this.inLoop) throw new NotSure();
  }

  returnStatement(): void {
    if (!this.inFunction) throw new NotSure();
    if (!this.atStatementEnd()) this.starExpressions();
  }

  raiseStatement(): void {
    if (this.atStatementEnd()) return;
    this.expression();
    if (this.accept("from")) this.expression();
  }

  deleteStatement(): void {
    do this.check(this.bitwiseOr(), "del");
    while (this.accept(",") && !this.atStatementEnd());
  }

  assertStatement(): void {
    this.expression();
    if (this.accept(",")) this.expression();
  }

  importStatement(): void {
    const start = this.tokens[this.pos - 1]?.start as number;
    do {
      const module = this.dottedName();
      this.parsed.imports.push({ module, start });
      this.parsed.bound.add(this.accept("as") ? this.expectName().id : module);
    } while (this.accept(","));
  }

  fromImport(): void {
    const start = this.tokens[this.pos - 1]?.start as number;
    let relative = false;
    while (this.accept(".") || this.accept("...")) relative = true;
    const module = relative && this.is("import") ? undefined : this.dottedName();
    if (module === "__future__") throw new NotSure();
    if (module !== undefined && !relative) this.parsed.imports.push({ module, start });
    this.expect("import");
    this.importedNames();
  }

  /** What `from … import` imports: `*` (at the top level only), or names, in brackets or not. */
  private importedNames(): void {
    if (this.accept("*")) {
      if (this.inDefinition) throw new NotSure();
      this.parsed.bound.add("*");
      return;
    }
    const parenthesized = this.accept("(");
    do {
      const name = this.expectName().id;
      this.parsed.bound.add(this.accept("as") ? this.expectName().id : name);
    } while (this.accept(",") && !(parenthesized && this.is(")")));
    if (parenthesized) this.expect(")");
  }

  /** A dotted module name; returns its first part. */
  private dottedName(): string {
    const first = this.expectName().id;
    while (this.accept(".")) this.expectName();
    return first;
  }

  private atStatementEnd(): boolean {
    return this.token.type === "newline" || this.is(";");
  }

  private expressionStatement(): void {
    // CPython's grammar commits to `(target)` before a `:`, so `(x).y: int` is a mistake there.
    const parenthesized = this.is("(");
    const first = this.is("yield") ? this.yieldExpression() : this.starExpressions();
    if (this.accept(":")) {
      if (parenthesized) throw new NotSure();
      this.check(first, "single");
      this.annotation();
      if (this.accept("=")) this.assignedValue();
    } else if (this.isOperator(augmented)) {
      this.check(first, "single");
      this.pos++;
      this.assignedValue();
    } else if (this.is("=")) {
      let target = first;
      while (this.accept("=")) {
        this.check(target, "assign");
        target = this.assignedValue();
      }
    }
  }

  /** An annotation: no walrus or yield in it, which CPython refuses there. */
  private annotation(): void {
    const [walruses, yields] = this.counts();
    this.expression();
    if (this.walrusTargets.length !== walruses || this.yields !== yields) throw new NotSure();
  }

  private assignedValue(): Expr {
    return this.is("yield") ? this.yieldExpression() : this.starExpressions();
  }

  /** Marks a target's names as bound; NotSure where CPython cannot assign to (or delete) it. */
  private check(target: Expr, kind: TargetKind): void {
    if (target.kind === "name") {
      if (target.id === "__debug__") throw new NotSure();
      target.bound = true;
    } else if (target.kind === "tuple" || target.kind === "list") this.checkElements(target.elements, kind);
    else if (target.kind !== "attribute" && target.kind !== "subscript") throw new NotSure();
  }

  /** A tuple's or list's targets: at most one starred, none to delete. */
  private checkElements(elements: Expr[], kind: TargetKind): void {
    if (kind === "single") throw new NotSure();
    const starred = elements.filter((element) => element.kind === "starred");
    if (starred.length > (kind === "del" ? 0 : 1)) throw new NotSure();
    // CPython unpacks at most 255 targets before a starred one.
    if (starred.length > 0 && elements.length > maxUnpacked) throw new NotSure();
    for (const element of elements) this.check(element.kind === "starred" ? element.value : element, kind);
  }

  /** Targets of `for`: starred or `|`-level expressions, a tuple when there is a comma. */
  private targetList(): Expr {
    const item = () => (this.accept("*") ? this.starred(this.bitwiseOr()) : this.bitwiseOr());
    const first = item();
    if (!this.is(",")) return first;
    const elements = [first];
    while (this.accept(",") && !this.is("in")) elements.push(item());
    return { kind: "tuple", elements };
  }

  // Expressions

  private starExpressions(): Expr {
    const first = this.starExpression();
    if (!this.is(",")) {
      if (first.kind === "starred") throw new NotSure();
      return first;
    }
    const elements = [first];
    while (this.accept(",") && this.startsExpression()) elements.push(this.starExpression());
    return { kind: "tuple", elements };
  }

  private startsExpression(): boolean {
    const { type, text } = this.token;
    if (type === "name" || type === "number" || type === "string") return true;
    if (type === "keyword") return ["not", "lambda", "None", "True", "False", "await"].includes(text);
    return type === "op" && ["(", "[", "{", "-", "+", "~", "*", "..."].includes(text);
  }

  private starExpression(): Expr {
    return this.accept("*") ? this.starred(this.bitwiseOr()) : this.expression();
  }

  private starNamedExpression(): Expr {
    return this.accept("*") ? this.starred(this.bitwiseOr()) : this.namedExpression();
  }

  private starred(value: Expr): Expr {
    return { kind: "starred", value };
  }

  private namedExpression(): Expr {
    const next = this.tokens[this.pos + 1];
    if (this.token.type !== "name" || next?.text !== ":=" || next.type !== "op") return this.expression();
    const target = this.expectName();
    this.pos++;
    target.bound = true;
    this.parsed.names.push(target);
    this.walrusTargets.push(target.id);
    this.expression();
    return { kind: "named" };
  }

  private expression(): Expr {
    return this.deeper(() => {
      if (this.is("lambda")) return this.lambda();
      const body = this.disjunction();
      if (!this.accept("if")) return body;
      this.disjunction();
      this.expect("else");
      this.expression();
      return other;
    });
  }

  /** Parses one step deeper into CPython's tree; NotSure past the depth this reading vouches for. */
  private deeper<T>(parse: () => T, steps = 1): T {
    this.depth += steps;
    if (this.depth > maxDepth) throw new NotSure();
    this.deepest = Math.max(this.deepest, this.depth);
    const parsed = parse();
    this.depth -= steps;
    return parsed;
  }

  /**
   * Operands joined into a chain that nests its first operands deeper with each link (`a + b + c` is
   * `(a + b) + c`, `a.b.c` is `(a.b).c`), or into one node above them all where `flat` (`a or b or c`):
   * `next` parses one more link, false when there is none. Each operand is measured, and the chain must
   * fit as if all were under every link.
   */
  private chained(first: () => Expr, next: () => boolean, flat = false): Expr {
    const outer = this.deepest;
    this.deepest = this.depth;
    const parsed = first();
    let links = 0;
    while (next()) links++;
    const bottom = this.deepest + (flat ? Math.min(links, 1) : links);
    if (bottom > maxDepth) throw new NotSure();
    this.deepest = Math.max(outer, bottom);
    return links > 0 ? other : parsed;
  }

  private lambda(): Expr {
    this.pos++;
    this.parameters(":", false);
    this.expect(":");
    this.lambdas++;
    this.deeper(() => this.expression());
    this.lambdas--;
    return other;
  }

  /**
   * Parameters up to `closer`: `/`, `*`, `*args`, `**kwargs`, defaults, and annotations where
   * `annotated`; each name once, no parameter without a default after one with it before `*`.
   */
  private parameters(closer: string, annotated: boolean): void {
    const state = { seen: new Set<string>(), positional: 0, defaulted: false, star: false, bareStar: false };
    while (!this.is(closer)) {
      if (this.accept("**")) {
        this.keywordsParameter(state, closer, annotated);
        return;
      }
      if (this.accept("/")) this.slash(state);
      else if (this.accept("*")) this.starParameter(state, annotated);
      else this.plainParameter(state, annotated);
      if (!this.accept(",")) break;
    }
    if (state.bareStar) throw new NotSure();
  }

  /** `**kwargs`, which comes last. */
  private keywordsParameter(state: ParameterState, closer: string, annotated: boolean): void {
    // A bare `*` needs a parameter after it before `**`; said before reading on, as CPython does.
    if (state.bareStar) throw new NotSure();
    this.parameter(state, annotated);
    if (this.accept(",") && !this.is(closer)) throw new NotSure();
  }

  private slash(state: ParameterState): void {
    if (state.star || state.positional === 0 || state.seen.has("/")) throw new NotSure();
    state.seen.add("/");
  }

  private starParameter(state: ParameterState, annotated: boolean): void {
    if (state.star) throw new NotSure();
    state.star = true;
    if (this.token.type === "name") this.parameter(state, annotated);
    else state.bareStar = true;
  }

  private plainParameter(state: ParameterState, annotated: boolean): void {
    this.parameter(state, annotated);
    state.bareStar = false;
    if (!state.star) state.positional++;
    if (this.accept("=")) {
      this.expression();
      state.defaulted = true;
    } else if (state.defaulted && !state.star) throw new NotSure();
  }

  private parameter(state: ParameterState, annotated: boolean): void {
    const { id } = this.expectName();
    if (state.seen.has(id)) throw new NotSure();
    state.seen.add(id);
    this.parsed.bound.add(id);
    if (annotated && this.accept(":")) this.annotation();
  }

  private disjunction(): Expr {
    return this.chain(["or"], () => this.conjunction());
  }

  private conjunction(): Expr {
    return this.chain(["and"], () => this.inversion());
  }

  private chain(operators: readonly string[], operand: () => Expr): Expr {
    return this.chained(
      operand,
      () => {
        if (!operators.some((operator) => this.accept(operator))) return false;
        operand();
        return true;
      },
      true,
    );
  }

  private inversion(): Expr {
    if (!this.accept("not")) return this.comparison();
    this.deeper(() => this.inversion());
    return other;
  }

  private comparison(): Expr {
    return this.chained(
      () => this.bitwiseOr(),
      () => {
        if (!this.isOperator(comparisons)) return false;
        if (this.accept("not")) this.expect("in");
        else if (this.accept("is")) this.accept("not");
        else this.pos++;
        this.bitwiseOr();
        return true;
      },
      true,
    );
  }

  private bitwiseOr(): Expr {
    return this.binary(0);
  }

  private binary(level: number): Expr {
    const operators = binaryLevels[level];
    if (!operators) return this.factor();
    return this.chained(
      () => this.binary(level + 1),
      () => {
        if (!this.isOperator(operators)) return false;
        this.pos++;
        this.binary(level + 1);
        return true;
      },
    );
  }

  private factor(): Expr {
    if (this.accept("-") || this.accept("+") || this.accept("~")) {
      this.deeper(() => this.factor());
      return other;
    }
    return this.chained(
      () => this.primary(),
      () => {
        if (!this.accept("**")) return false;
        this.factor();
        return true;
      },
    );
  }

  /** An atom and its trailers, `.name`, `(…)` and `[…]`, each a link of a chain. */
  private primary(): Expr {
    let value: Expr = other;
    this.chained(
      () => {
        value = this.atom();
        return value;
      },
      () => {
        if (this.accept(".")) value = this.attribute(value);
        else if (this.accept("(")) value = this.call(value);
        else if (this.accept("[")) {
          this.slices();
          value = { kind: "subscript" };
        } else return false;
        return true;
      },
    );
    return value;
  }

  private attribute(value: Expr): Expr {
    const { id } = this.expectName();
    if (value.kind === "name" && (id === "request" || id === "response"))
      this.parsed.formulaReads.push(value);
    return { kind: "attribute" };
  }

  private call(callee: Expr): Expr {
    const { args, keywords } = this.callArguments(true);
    if (callee.kind === "name" && (callee.id === "keep" || callee.id === "map_value"))
      this.parsed.calls.push({ callee, args, keywords });
    return other;
  }

  /**
   * A call's arguments (or a class's bases) after its `(`, through its `)`, in the order CPython allows
   * them; a call's only argument may be a generator expression.
   */
  private callArguments(call: boolean): Arguments {
    const found: Arguments = { args: [], keywords: [], unpacked: false };
    while (!this.is(")")) {
      if (this.accept("*")) {
        if (found.unpacked) throw new NotSure();
        found.args.push(this.starred(this.expression()));
      } else if (this.accept("**")) {
        found.unpacked = true;
        this.expression();
      } else if (this.token.type === "name" && this.tokens[this.pos + 1]?.text === "=") this.keyword(found);
      else if (this.positional(found, call)) return this.generatorArgument(found);
      if (!this.accept(",")) break;
    }
    this.expect(")");
    return found;
  }

  /** A positional argument; true where it begins a call's generator expression. */
  private positional(found: Arguments, call: boolean): boolean {
    if (found.unpacked || found.keywords.length > 0) throw new NotSure();
    found.counts = this.counts();
    found.args.push(this.namedExpression());
    return call && this.is("for");
  }

  private keyword(found: Arguments): void {
    const { id } = this.expectName();
    if (found.keywords.includes(id)) throw new NotSure();
    this.pos++;
    found.keywords.push(id);
    this.expression();
  }

  /** A generator expression as a call's argument: its only one, with no comma after it. */
  private generatorArgument(found: Arguments): Arguments {
    if (found.args.length !== 1 || !found.counts) throw new NotSure();
    this.comprehension(found.counts);
    this.expect(")");
    return { ...found, args: [other] };
  }

  private slices(): void {
    do this.slice();
    while (this.accept(",") && !this.is("]"));
    this.expect("]");
  }

  /** An index, or `start:stop:step` with any of the three left out. */
  private slice(): void {
    if (this.is("*")) throw new NotSure();
    // A slice's start is an expression: a walrus there needs brackets of its own.
    const start = this.is(":") ? undefined : this.namedExpression();
    if (!this.accept(":")) return;
    if (start?.kind === "named") throw new NotSure();
    if (!this.sliceEnds()) this.expression();
    if (this.accept(":") && !this.sliceEnds()) this.expression();
  }

  private sliceEnds(): boolean {
    return this.is(":") || this.is(",") || this.is("]");
  }

  private atom(): Expr {
    const token = this.token;
    if (token.type === "name") {
      const name = this.expectName();
      this.parsed.names.push(name);
      return name;
    }
    if (token.type === "string") return this.strings();
    this.pos++;
    if (token.type === "number" || ["None", "True", "False", "..."].includes(token.text))
      return { kind: "constant" };
    if (this.tokens[this.pos - 1]?.type === "op") {
      if (token.text === "(") return this.deeper(() => this.group());
      if (token.text === "[") return this.deeper(() => this.list());
      if (token.text === "{") return this.deeper(() => this.braces());
    }
    throw new NotSure();
  }

  /** Strings written one after another: one value, bytes with bytes only; f-strings' fields parsed. */
  private strings(): Expr {
    const first = this.token;
    let value: string | undefined = "";
    while (this.token.type === "string") {
      const literal = this.token.string;
      if (literal?.bytes !== first.string?.bytes) throw new NotSure();
      for (const field of literal?.fields ?? []) this.field(field);
      value = value === undefined || literal?.value === undefined ? undefined : value + literal.value;
      this.pos++;
    }
    if (first.string?.bytes) return { kind: "constant" };
    return value === undefined ? other : { kind: "string", value, start: first.start };
  }

  /** An f-string's replacement field, parsed where it stands as CPython does. */
  private field(tokens: Token[]): void {
    const outer = { tokens: this.tokens, pos: this.pos };
    this.tokens = tokens;
    this.pos = 0;
    // A field is a value formatted within the string: two nodes down.
    this.deeper(() => this.assignedValue(), 2);
    if (this.token.type !== "end") throw new NotSure();
    this.tokens = outer.tokens;
    this.pos = outer.pos;
  }

  private group(): Expr {
    if (this.accept(")")) return { kind: "tuple", elements: [] };
    if (this.is("yield")) {
      this.yieldExpression();
      this.expect(")");
      return other;
    }
    const counts = this.counts();
    const first = this.starNamedExpression();
    if (this.is("for")) return this.comprehensionOf(first, ")", counts);
    if (!this.is(",")) {
      this.expect(")");
      if (first.kind === "starred") throw new NotSure();
      return first;
    }
    return { kind: "tuple", elements: this.elements(first, ")") };
  }

  private list(): Expr {
    if (this.accept("]")) return { kind: "list", elements: [] };
    const counts = this.counts();
    const first = this.starNamedExpression();
    if (this.is("for")) return this.comprehensionOf(first, "]", counts);
    return { kind: "list", elements: this.elements(first, "]") };
  }

  /** A display's elements after its first, through its closing bracket. */
  private elements(first: Expr, closer: string): Expr[] {
    const elements = [first];
    while (this.accept(",") && !this.is(closer)) elements.push(this.starNamedExpression());
    this.expect(closer);
    return elements;
  }

  private braces(): Expr {
    if (this.accept("}")) return { kind: "dict", keys: [] };
    const counts = this.counts();
    if (this.accept("**")) return this.dict(undefined, counts);
    const first = this.starNamedExpression();
    if (this.is(":")) {
      if (first.kind === "starred" || first.kind === "named") throw new NotSure();
      return this.dict(first, counts);
    }
    if (this.is("for")) return this.comprehensionOf(first, "}", counts);
    this.elements(first, "}");
    return other;
  }

  /** A dict display or comprehension after its first key (undefined for a `**` first item). */
  private dict(firstKey: Expr | undefined, counts: Counts): Expr {
    const keys = [firstKey];
    if (firstKey === undefined) this.bitwiseOr();
    else {
      this.expect(":");
      this.expression();
      if (this.is("for")) return this.comprehensionOf(firstKey, "}", counts);
    }
    while (this.accept(",") && !this.is("}")) {
      if (this.accept("**")) {
        keys.push(undefined);
        this.bitwiseOr();
        continue;
      }
      keys.push(this.expression());
      this.expect(":");
      this.expression();
    }
    this.expect("}");
    return { kind: "dict", keys };
  }

  private comprehensionOf(element: Expr, closer: string, counts: Counts): Expr {
    if (element.kind === "starred") throw new NotSure();
    this.comprehension(counts);
    this.expect(closer);
    return other;
  }

  /**
   * `for … in …` clauses with their `if`s; NotSure where the comprehension, its element included, holds
   * a yield, or a walrus CPython rejects there: in an iterable, binding a loop variable, in a class body.
   * `counts` are the parser's where the comprehension's element began.
   */
  private comprehension([walruses, yields]: Counts): void {
    const loopVariables: string[] = [];
    this.depth++;
    do {
      this.expect("for");
      const beforeTarget = this.walrusTargets.length;
      const target = this.targetList();
      if (this.walrusTargets.length !== beforeTarget) throw new NotSure();
      this.check(target, "assign");
      loopVariables.push(...namesIn(target));
      this.expect("in");
      const before = this.walrusTargets.length;
      this.disjunction();
      if (this.walrusTargets.length !== before) throw new NotSure();
      while (this.accept("if")) this.disjunction();
    } while (this.is("for"));
    this.depth--;
    const walrusTargets = this.walrusTargets.slice(walruses);
    const inClassBody = this.inDefinition && !this.inFunction;
    if (this.yields !== yields || (walrusTargets.length > 0 && inClassBody)) throw new NotSure();
    if (walrusTargets.some((name) => loopVariables.includes(name))) throw new NotSure();
  }

  private counts(): Counts {
    return [this.walrusTargets.length, this.yields];
  }

  private yieldExpression(): Expr {
    this.pos++;
    if (!this.inFunction || this.lambdas > 0) throw new NotSure();
    this.yields++;
    if (this.accept("from")) this.expression();
    else if (!(this.token.type === "newline" || this.token.type === "end" || ends.has(this.token.text)))
      this.starExpressions();
    return other;
  }
}

/** A call's arguments so far: positional, keyword names, and whether `**` came. */
interface Arguments {
  args: Expr[];
  keywords: string[];
  unpacked: boolean;
  /** The parser's counts where the last positional argument began. */
  counts?: Counts;
}

/** The parser's walrus and yield counts where a comprehension's element begins. */
type Counts = readonly [walrusTargets: number, yields: number];

/** The names a target binds. */
function namesIn(target: Expr): string[] {
  if (target.kind === "name") return [target.id];
  if (target.kind === "starred") return namesIn(target.value);
  if (target.kind === "tuple" || target.kind === "list") return target.elements.flatMap(namesIn);
  return [];
}

interface ParameterState {
  seen: Set<string>;
  positional: number;
  defaulted: boolean;
  star: boolean;
  bareStar: boolean;
}

type CompoundMethod =
  | "ifStatement"
  | "whileStatement"
  | "forStatement"
  | "tryStatement"
  | "withStatement"
  | "functionDefinition"
  | "classDefinition"
  | "notSure";
type SimpleMethod =
  | "pass"
  | "loopJump"
  | "returnStatement"
  | "raiseStatement"
  | "deleteStatement"
  | "assertStatement"
  | "importStatement"
  | "fromImport"
  | "notSure";

/** How CPython names a clause in "expected an indented block after …", where not `'keyword' statement`. */
const clauseNames: Readonly<Record<string, string>> = {
  def: "function definition",
  class: "class definition",
};

const compound = new Map<string, CompoundMethod>([
  ["if", "ifStatement"],
  ["while", "whileStatement"],
  ["for", "forStatement"],
  ["try", "tryStatement"],
  ["with", "withStatement"],
  ["def", "functionDefinition"],
  ["class", "classDefinition"],
  ["async", "notSure"],
]);
const simple = new Map<string, SimpleMethod>([
  ["pass", "pass"],
  ["break", "loopJump"],
  ["continue", "loopJump"],
  ["return", "returnStatement"],
  ["raise", "raiseStatement"],
  ["del", "deleteStatement"],
  ["assert", "assertStatement"],
  ["import", "importStatement"],
  ["from", "fromImport"],
  ["global", "notSure"],
  ["nonlocal", "notSure"],
]);

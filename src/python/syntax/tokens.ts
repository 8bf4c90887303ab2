import { type KnownSyntaxError, NotSure } from "./not-sure.js";

export type TokenType =
  | "name"
  | "keyword"
  | "number"
  | "string"
  | "op"
  | "newline"
  | "indent"
  | "dedent"
  | "end"
  | "error";

export interface Token {
  type: TokenType;
  text: string;
  /** Offset of the token's first character in the cell's code. */
  start: number;
  string?: StringLiteral;
  /** An `error` token's syntax error, said where the parser comes to it. */
  error?: KnownSyntaxError;
}

/** What the parser needs of one string literal. */
export interface StringLiteral {
  bytes: boolean;
  /** A plain string's value, escapes decoded; undefined for bytes and f-strings. */
  value?: string;
  /** An f-string's replacement fields, each its expression's tokens up to an `end` token. */
  fields?: Token[][];
}

const keywords: ReadonlySet<string> = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
const operators = [
  ["**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!="],
  ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="],
];
const twoOrThree: ReadonlySet<string> = new Set(operators.flat());
const single: ReadonlySet<string> = new Set("+-*/%@&|^~<>()[]{},:;.=");
const closers: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}" };
const name = /[A-Za-z_][A-Za-z0-9_]*/y;
const number =
  /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?[jJ]?/y;
// A decimal integer with a leading zero and another digit after it (0777): Python 3 has no such literal.
const octalLike = /^0[0-9_]*[1-9][0-9_]*$/;
const stringPrefix = /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/;
// The characters that end a name or a number: one right after either is a mistake or a Unicode name.
const wordLike = /[A-Za-z0-9_\u0080-\uffff]/;
// Brackets (f-strings' fields and their brackets counted in) and f-strings within f-strings, kept well
// below CPython's limits, where its own messages would differ.
const maxNesting = 60;
const maxFieldNesting = 20;
// CPython refuses decimal integers longer than this (sys.int_info.default_max_str_digits).
const maxDigits = 4300;

/**
 * The tokens of a cell's code as CPython's tokenizer makes them (NEWLINE, INDENT, DEDENT included), or
 * NotSure for anything it would reject or that this tokenizer leaves to CPython: tabs in indentation,
 * non-ASCII names, t-strings, `\N{…}` escapes. An error it knows CPython's words for (an unterminated
 * string, a dedent to no level) ends the tokens as an `error` token: CPython's tokenizer runs as its
 * parser asks for tokens, so a mistake of the parser's before it is said first.
 */
export function tokenize(source: string): Token[] {
  // Lone surrogates are text CPython cannot take in at all.
  if (/[\0\r\f\v]|[\uD800-\uDFFF]/u.test(source)) throw new NotSure();
  const lexer = new Lexer(source);
  try {
    lexer.lines();
  } catch (error) {
    if (!(error instanceof NotSure && error.known)) throw error;
    lexer.tokens.push({ type: "error", text: "", start: error.known.at, error: error.known });
  }
  return lexer.tokens;
}

class Lexer {
  readonly tokens: Token[] = [];
  pos = 0;
  private readonly indents = [0];
  /** The brackets open here, innermost last: the closer each waits for, and where it opened. */
  private readonly open: { closer: string; at: number }[] = [];

  constructor(
    readonly source: string,
    /**
     * Set for an f-string's replacement field: whether the string is triple-quoted, and the brackets and
     * fields open around the field.
     */
    private readonly field?: { triple: boolean; brackets: number; fields: number },
  ) {}

  lines(): void {
    const { source } = this;
    while (this.pos < source.length) {
      const start = this.pos;
      while (source[this.pos] === " ") this.pos++;
      const c = source[this.pos];
      if (c === "\t") throw new NotSure();
      if (c === "\n") this.pos++;
      else if (c === "#") this.skipComment(start);
      else if (c !== undefined) {
        this.indentTo(this.pos - start, start);
        this.logicalLine();
      }
    }
    while (this.indents.length > 1) {
      this.indents.pop();
      this.push("dedent", "", this.pos);
    }
    this.push("end", "", this.pos);
  }

  /** A field's tokens, from just after its `{` to the `}`, `!`, `:` or `=` that ends its expression. */
  fieldTokens(): Token[] {
    for (;;) {
      this.skipSpace();
      const c = this.source[this.pos];
      if (c === undefined) throw new NotSure();
      if (this.open.length === 0 && this.endsField(c)) break;
      this.token();
    }
    this.push("end", "", this.pos);
    return this.tokens;
  }

  private endsField(c: string): boolean {
    const next = this.source[this.pos + 1];
    return c === "}" || c === ":" || (c === "!" && next !== "=") || (c === "=" && next !== "=");
  }

  private skipComment(lineStart: number): void {
    // An encoding declaration means something to CPython that a string of code cannot show here.
    if (this.tokens.length === 0 && /coding[:=]/.test(this.lineAt(lineStart))) throw new NotSure();
    const end = this.source.indexOf("\n", this.pos);
    this.pos = end === -1 ? this.source.length : end;
  }

  private lineAt(start: number): string {
    const end = this.source.indexOf("\n", start);
    return this.source.slice(start, end === -1 ? undefined : end);
  }

  private indentTo(width: number, at: number): void {
    const current = this.indents[this.indents.length - 1] as number;
    if (width > current) {
      this.indents.push(width);
      this.push("indent", "", at);
      return;
    }
    while (width < (this.indents[this.indents.length - 1] as number)) {
      this.indents.pop();
      this.push("dedent", "", at);
    }
    if (width !== this.indents[this.indents.length - 1]) {
      // CPython's tokenizer says so at the end of the line.
      const end = this.source.indexOf("\n", at);
      throw new NotSure({
        message: () => "IndentationError: unindent does not match any outer indentation level",
        at: end === -1 ? this.source.length : end,
      });
    }
  }

  /** The tokens of one logical line, through its NEWLINE: lines join inside brackets and after a `\`. */
  private logicalLine(): void {
    const first = this.tokens.length;
    // CPython's NEWLINE token begins where a comment that ends the line does.
    let comment: number | undefined;
    for (;;) {
      this.skipSpace();
      const c = this.source[this.pos];
      if (c === undefined || c === "\n") {
        if (this.endsLine(c, comment)) return;
        comment = undefined;
      } else if (c === "#") {
        comment = this.pos;
        this.skipComment(this.pos);
      } else if (c === "\\") this.continueLine(this.tokens.length === first);
      else this.token();
    }
  }

  /** At a line break or the end of the code: a NEWLINE outside brackets; inside them, the line goes on. */
  private endsLine(c: string | undefined, comment: number | undefined): boolean {
    if (c === undefined && this.open.length > 0) this.neverClosed();
    const at = comment ?? this.pos;
    if (c === "\n") this.pos++;
    if (this.open.length > 0) return false;
    this.push("newline", "", at);
    return true;
  }

  /**
   * The code ends inside brackets. CPython says so of the innermost where its parser comes to the end,
   * or makes a mistake on a line after that bracket's.
   */
  private neverClosed(): never {
    const { at } = this.open[this.open.length - 1] as { at: number };
    const lineEnd = this.source.indexOf("\n", at);
    throw new NotSure({
      message: () => `SyntaxError: '${this.source[at]}' was never closed`,
      at,
      after: lineEnd === -1 ? this.source.length : lineEnd,
    });
  }

  private skipSpace(): void {
    const { source } = this;
    for (;;) {
      const c = source[this.pos];
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\n" && this.field?.triple) this.pos++;
      else if (c === "\n" || c === "#") {
        // A comment or a line break inside a field: left to CPython.
        if (this.field) throw new NotSure();
        return;
      } else return;
    }
  }

  /** A `\` that joins the next line to this one; `first` where the line has no token before it. */
  private continueLine(first: boolean): void {
    const { source } = this;
    // Before a line's first token, CPython reads the next line's spaces as its indentation.
    if (source[this.pos + 1] !== "\n" || this.field || first) throw new NotSure();
    this.pos += 2;
    // A blank or comment line after a `\` is a case CPython words its own way.
    const rest = /[ \t]*(?:#|\n|$)/y;
    rest.lastIndex = this.pos;
    if (rest.test(source)) throw new NotSure();
  }

  private token(): void {
    const c = this.source[this.pos] as string;
    if (/[A-Za-z_]/.test(c)) this.word();
    else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(this.source[this.pos + 1] ?? ""))) this.number();
    else if (c === '"' || c === "'") this.string(this.pos, "");
    else this.operator();
  }

  private word(): void {
    const start = this.pos;
    const text = this.match(name);
    const next = this.source[this.pos] ?? "";
    // A name against a quote that is no prefix: a t-string, or a mistake CPython words its own way.
    if (next === '"' || next === "'") {
      if (!stringPrefix.test(text)) throw new NotSure();
      this.string(start, text);
    } else if (wordLike.test(next)) throw new NotSure();
    else this.push(keywords.has(text) ? "keyword" : "name", text, start);
  }

  private number(): void {
    const start = this.pos;
    const text = this.match(number);
    if (octalLike.test(text) || wordLike.test(this.source[this.pos] ?? "")) throw new NotSure();
    if (text.length > maxDigits && /^[0-9_]+$/.test(text)) throw new NotSure();
    this.push("number", text, start);
  }

  private match(pattern: RegExp): string {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.source);
    if (!found) throw new NotSure();
    this.pos = pattern.lastIndex;
    return found[0];
  }

  private operator(): void {
    const { source, pos } = this;
    const three = source.slice(pos, pos + 3);
    const two = source.slice(pos, pos + 2);
    const text = twoOrThree.has(three) ? three : twoOrThree.has(two) ? two : source[pos];
    if (text === undefined || !(twoOrThree.has(text) || single.has(text))) throw new NotSure();
    this.bracket(text);
    this.pos += text.length;
    this.push("op", text, pos);
  }

  /** Brackets open here and around, an f-string's field counted as one. */
  private brackets(): number {
    return this.open.length + (this.field?.brackets ?? 0);
  }

  private bracket(text: string): void {
    const closer = closers[text];
    if (closer) {
      this.open.push({ closer, at: this.pos });
      if (this.brackets() > maxNesting) throw new NotSure();
    } else if (text === ")" || text === "]" || text === "}") {
      if (this.open.pop()?.closer !== text) throw new NotSure();
    }
  }

  private string(start: number, prefix: string): void {
    const lower = prefix.toLowerCase();
    const quote = this.source[this.pos] as string;
    const triple = this.source.startsWith(quote.repeat(3), this.pos);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.pos += delimiter.length;
    const literal = lower.includes("f")
      ? this.formatted(delimiter, lower.includes("r"))
      : this.plain(start, delimiter, lower.includes("r"), lower.includes("b"));
    this.tokens.push({ type: "string", text: this.source.slice(start, this.pos), start, string: literal });
  }

  private plain(start: number, delimiter: string, raw: boolean, bytes: boolean): StringLiteral {
    const content = this.content(start, delimiter);
    if (bytes) {
      // Bytes hold ASCII only; their escapes are checked, their value is not needed.
      if (/[^\0-\x7f]/.test(content)) throw new NotSure();
      if (!raw) decodeEscapes(content, true);
      return { bytes: true };
    }
    return { bytes: false, value: raw ? content : decodeEscapes(content, false) };
  }

  /** A plain string's content, up to its closing quotes, which it steps over. */
  private content(start: number, delimiter: string): string {
    const { source } = this;
    const from = this.pos;
    for (;;) {
      const c = source[this.pos];
      if (c === undefined || (c === "\n" && delimiter.length === 1)) this.unterminated(start, delimiter);
      if (c === "\\") this.pos += 2;
      else if (source.startsWith(delimiter, this.pos)) break;
      else this.pos++;
    }
    this.pos += delimiter.length;
    return source.slice(from, this.pos - delimiter.length);
  }

  /** A plain string that ends before its closing quotes, said as CPython's tokenizer says it. */
  private unterminated(start: number, delimiter: string): never {
    const { source, pos } = this;
    // Inside an f-string's field, and where the string has a `\"` (CPython then asks whether the end
    // quote was escaped), CPython's words differ.
    if (this.field || source.slice(start, pos).includes(`\\${delimiter[0]}`)) throw new NotSure();
    const triple = delimiter.length === 3;
    const end = triple || pos >= source.length ? source.length - 1 : pos;
    const kind = triple ? "triple-quoted string" : "string";
    throw new NotSure({
      message: (lineOf) => `SyntaxError: unterminated ${kind} literal (detected at line ${lineOf(end)})`,
      at: start,
    });
  }

  private formatted(delimiter: string, raw: boolean): StringLiteral {
    const { source } = this;
    const fields: Token[][] = [];
    for (;;) {
      const c = source[this.pos];
      if (c === undefined || (c === "\n" && delimiter.length === 1)) throw new NotSure();
      if (source.startsWith(delimiter, this.pos)) break;
      if (c === "\\") this.formattedEscape(raw);
      else if (c === "{" || c === "}") this.brace(c, fields, delimiter.length === 3);
      else this.pos++;
    }
    this.pos += delimiter.length;
    return { bytes: false, fields };
  }

  private formattedEscape(raw: boolean): void {
    const escaped = this.source[this.pos + 1] ?? "";
    // `\{`, `\}` and `\N{…}` read differently in f-strings; a raw one keeps its backslash as it is.
    if (escaped === "{" || escaped === "}" || (!raw && escaped === "N")) throw new NotSure();
    if (raw) {
      this.pos += 2;
      return;
    }
    oneEscape.lastIndex = this.pos;
    const [written] = oneEscape.exec(this.source) as RegExpExecArray;
    decodeEscapes(written, false);
    this.pos += written.length;
  }

  private brace(c: string, fields: Token[][], triple: boolean): void {
    if (this.source[this.pos + 1] === c) {
      this.pos += 2;
      return;
    }
    if (c === "}") throw new NotSure();
    this.pos = this.replacementField(this.pos + 1, fields, triple, false);
  }

  /** One `{…}` of an f-string from just after its `{`; returns the offset after its `}`. */
  private replacementField(from: number, fields: Token[][], triple: boolean, nested: boolean): number {
    const { source } = this;
    const depth = (this.field?.fields ?? 0) + 1;
    if (depth > maxFieldNesting) throw new NotSure();
    const lexer = new Lexer(source, { triple, brackets: this.brackets() + 1, fields: depth });
    lexer.pos = from;
    const tokens = lexer.fieldTokens();
    if (tokens.length === 1) throw new NotSure();
    fields.push(tokens);
    let pos = lexer.pos;
    // `{x=}` and `{x = }` write the expression's text before its value.
    if (source[pos] === "=") pos = source[pos + 1] === " " ? this.spacesBefore("}", pos + 1) : pos + 1;
    if (source[pos] === "!") {
      if (!/^[rsa][:}]/.test(source.slice(pos + 1, pos + 3))) throw new NotSure();
      pos += 2;
    }
    if (source[pos] === ":") pos = this.formatSpec(pos + 1, fields, triple, nested);
    if (source[pos] !== "}") throw new NotSure();
    return pos + 1;
  }

  private spacesBefore(end: string, from: number): number {
    let pos = from;
    while (this.source[pos] === " ") pos++;
    if (this.source[pos] !== end) throw new NotSure();
    return pos;
  }

  /** A format spec: text with fields of its own, one level deep; returns the offset of its `}`. */
  private formatSpec(from: number, fields: Token[][], triple: boolean, nested: boolean): number {
    const { source } = this;
    let pos = from;
    for (;;) {
      const c = source[pos];
      if (c === undefined || c === "\\" || c === "\n" || c === '"' || c === "'") throw new NotSure();
      if (c === "}") return pos;
      if (c === "{") {
        if (nested || source[pos + 1] === "{") throw new NotSure();
        pos = this.replacementField(pos + 1, fields, triple, true);
      } else pos++;
    }
  }

  private push(type: TokenType, text: string, start: number): void {
    this.tokens.push({ type, text, start });
  }
}

const escapeBody = String.raw`\\(\n|[\\'"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[^])`;
const escapes = new RegExp(escapeBody, "g");
const oneEscape = new RegExp(escapeBody, "y");
const simpleEscapes: Readonly<Record<string, string>> = {
  "\n": "",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * A string's content with its escapes decoded as CPython decodes them; NotSure for an escape it rejects
 * (a short `\x`, `\u`, `\U`) or one left to it (`\N{…}`). Unknown escapes stay as written, as in Python.
 */
function decodeEscapes(content: string, bytes: boolean): string {
  if (!content.includes("\\")) return content;
  return content.replace(escapes, (whole, body: string) => {
    const simple = simpleEscapes[body];
    if (simple !== undefined) return simple;
    const kind = body[0] as string;
    if (/[0-7]/.test(kind)) return String.fromCodePoint(Number.parseInt(body, 8));
    if (bytes && (kind === "u" || kind === "U" || kind === "N")) return whole;
    if (body.length > 1) return codePoint(Number.parseInt(body.slice(1), 16));
    if (kind === "x" || kind === "u" || kind === "U" || kind === "N") throw new NotSure();
    return whole;
  });
}

function codePoint(value: number): string {
  if (value > 0x10ffff) throw new NotSure();
  return String.fromCodePoint(value);
}

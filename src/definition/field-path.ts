/** One step of a field path (SPEC §4.5, §4.8). */
export type PathSegment =
  | { kind: "key"; name: string }
  | { kind: "index"; index: number }
  | { kind: "wildcard" }
  /** A bracket expression, evaluated as a cell: `items[fidx]`. `offset` is where its code starts in the path. */
  | { kind: "expression"; code: string; offset: number };

export type ParsedPath =
  | { ok: true; segments: PathSegment[] }
  | { ok: false; message: string; offset: number };

const identifierStart = /[A-Za-z_$]/;
const identifierPart = /[A-Za-z0-9_$-]/;

/** Parses `a.b`, `a[0]`, `a["key.with.dots"]`, `a[*]` and `a[fidx].b`. */
export function parseFieldPath(text: string): ParsedPath {
  const segments: PathSegment[] = [];
  let at = 0;
  const fail = (message: string): ParsedPath => ({ ok: false, message, offset: at });
  let expectName = true;

  while (at < text.length) {
    const char = text[at] as string;
    if (char === "[") {
      const close = findClosingBracket(text, at);
      if (close < 0) return fail("unclosed [");
      const inner = text.slice(at + 1, close).trim();
      if (inner === "") return fail("empty []");
      segments.push(bracketSegment(inner, text.indexOf(inner, at + 1)));
      at = close + 1;
      expectName = false;
    } else if (char === ".") {
      if (expectName) return fail("a name is missing before .");
      at++;
      expectName = true;
    } else if (expectName && (identifierStart.test(char) || /[0-9]/.test(char))) {
      const start = at;
      while (at < text.length && identifierPart.test(text[at] as string)) at++;
      segments.push({ kind: "key", name: text.slice(start, at) });
      expectName = false;
    } else {
      return fail(`unexpected ${JSON.stringify(char)}`);
    }
  }
  if (expectName) return fail(segments.length === 0 ? "the path is empty" : "the path ends with .");
  return { ok: true, segments };
}

function bracketSegment(inner: string, offset: number): PathSegment {
  if (inner === "*") return { kind: "wildcard" };
  if (/^\d+$/.test(inner)) return { kind: "index", index: Number(inner) };
  const quoted = /^(["'])(.*)\1$/s.exec(inner);
  if (quoted && !quoted[2]?.includes(quoted[1] as string)) return { kind: "key", name: quoted[2] as string };
  return { kind: "expression", code: inner, offset };
}

/** The index of the `]` that closes the `[` at `open`, skipping nested brackets and quoted strings. */
function findClosingBracket(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let at = open; at < text.length; at++) {
    const char = text[at];
    if (quote) {
      if (char === "\\") at++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'" || char === "`") {
      quote = char;
    } else if (char === "[") {
      depth++;
    } else if (char === "]" && --depth === 0) {
      return at;
    }
  }
  return -1;
}

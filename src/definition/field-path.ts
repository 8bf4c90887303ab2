/** One step of a field path (docs/reference.md#service_requestsfield_mappings, docs/reference.md#masks). */
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
  let expectName = true;
  while (at < text.length) {
    const step = readStep(text, at, expectName);
    if (!step.ok) return { ok: false, message: step.message, offset: at };
    if (step.segment) segments.push(step.segment);
    // After a dot a name must come; after a segment, a dot or a bracket.
    expectName = step.segment === undefined;
    at = step.next;
  }
  if (expectName) {
    return {
      ok: false,
      message: segments.length === 0 ? "the path is empty" : "the path ends with .",
      offset: at,
    };
  }
  return { ok: true, segments };
}

/** What the text at `at` holds: a segment, or a dot (no segment); `next` is where the rest starts. */
type Step = { ok: true; segment?: PathSegment; next: number } | { ok: false; message: string };

function readStep(text: string, at: number, expectName: boolean): Step {
  const char = text[at] as string;
  if (char === "[") {
    const close = findClosingBracket(text, at);
    if (close < 0) return { ok: false, message: "unclosed [" };
    const inner = text.slice(at + 1, close).trim();
    if (inner === "") return { ok: false, message: "empty []" };
    return { ok: true, segment: bracketSegment(inner, text.indexOf(inner, at + 1)), next: close + 1 };
  }
  if (char === ".")
    return expectName ? { ok: false, message: "a name is missing before ." } : { ok: true, next: at + 1 };
  if (expectName && (identifierStart.test(char) || /[0-9]/.test(char))) {
    let end = at;
    while (end < text.length && identifierPart.test(text[end] as string)) end++;
    return { ok: true, segment: { kind: "key", name: text.slice(at, end) }, next: end };
  }
  return { ok: false, message: `unexpected ${JSON.stringify(char)}` };
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
  for (let at = open; at < text.length; at++) {
    const char = text[at] as string;
    if (quotes.has(char)) at = endOfQuote(text, at);
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) return at;
  }
  return -1;
}

const quotes = new Set(['"', "'", "`"]);

/** The index of the quote that closes the one at `open` (escapes skipped), or the text's end. */
function endOfQuote(text: string, open: number): number {
  for (let at = open + 1; at < text.length; at++) {
    if (text[at] === "\\") at++;
    else if (text[at] === text[open]) return at;
  }
  return text.length;
}

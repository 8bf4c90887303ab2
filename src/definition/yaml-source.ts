import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  visit,
} from "yaml";
import type { Issue } from "./issue.js";
import {
  type NodePlace,
  placeInString,
  placeKey,
  type SourceSnapshot,
  type StringPlace,
  type YamlSource,
} from "./source-snapshot.js";
import type { Position, ValuePath } from "./value-path.js";
import { yamlHint } from "./yaml-hints.js";

export type { YamlSource } from "./source-snapshot.js";

/** Parses YAML text; syntax problems come back as `yaml-syntax` issues, never thrown. A byte order mark is dropped first. */
export function parseYamlSource(file: string, input: string): { source: YamlSource; issues: Issue[] } {
  // The mark is no character of line 1: positions, and code frames of `text`, count from after it.
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  const lineCounter = new LineCounter();
  // logLevel "error": the parser's warnings are findings here, not lines on stderr.
  const doc = withPlainEnv(() =>
    parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: "error" }),
  );
  // After the first true syntax error the parser's later complaints are mostly echoes of it.
  const firstSyntaxError = doc.errors.find((error) => error.code !== "DUPLICATE_KEY");
  const problems = [
    ...doc.errors.filter((error) => error.code === "DUPLICATE_KEY" || error === firstSyntaxError),
    ...doc.warnings,
  ];
  /** The text of a 1-based line, without its line break. */
  const lineText = (line: number): string | undefined => {
    const start = lineCounter.lineStarts[line - 1];
    if (start === undefined) return undefined;
    return text.slice(start, lineCounter.lineStarts[line] ?? text.length).replace(/\r?\n$/, "");
  };
  const issues: Issue[] = problems.map((problem) => {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    const message = problem.message.replace(/ at line \d+, column \d+:?\s*$/s, "");
    const hint = yamlHint(problem.code, message, lineText(line) ?? "");
    return {
      file,
      line,
      column: col,
      severity: problem.name === "YAMLWarning" ? "warning" : "error",
      rule: "yaml-syntax",
      message: hint ? `${message}; ${hint}` : message,
    };
  });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };

  function locate(path: ValuePath, target: "key" | "value" = "key"): Position {
    const found = walk(doc.contents, path);
    const node = target === "key" && found.pair && found.complete ? found.pair.key : found.node;
    const offset = (isNodeWithRange(node) ? node.range[0] : undefined) ?? 0;
    return at(offset);
  }

  // Only a string written character for character (a literal block, a one-line plain or quoted scalar
  // without escapes) maps to exact places; inside any other the value's start is as near as is honest.
  function locateInString(path: ValuePath, line: number, column: number): Position {
    const found = walk(doc.contents, path);
    const place = found.complete ? stringPlace(found.node) : undefined;
    return placeInString(place, line, column) ?? locate(path, "value");
  }

  function stringPlace(node: unknown): StringPlace | undefined {
    if (!isScalar(node) || typeof node.value !== "string" || !node.range) return undefined;
    const [start, end] = node.range;
    if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
      const firstLine = at(start).line + 1;
      const indent = verbatimBlockIndent(node.value, (index) => lineText(firstLine + index));
      if (indent === undefined) return undefined;
      return { block: { firstLine, indent, lines: node.value.split("\n").length } };
    }
    const quote = node.type === "PLAIN" ? 0 : 1;
    if (text.slice(start + quote, end - quote) !== node.value) return undefined;
    return { inline: at(start + quote) };
  }

  function placeOf(node: unknown, pair: Pair | undefined): NodePlace {
    const place: NodePlace = { value: at(isNodeWithRange(node) ? node.range[0] : 0) };
    if (pair && isNodeWithRange(pair.key)) place.key = at(pair.key.range[0]);
    const inString = stringPlace(node);
    if (inString) place.string = inString;
    return place;
  }

  /** Every node's places, as `walk` and `locate` find them: the first of duplicate keys wins. */
  function snapshot(): SourceSnapshot {
    const places: Record<string, NodePlace> = {};
    const visit = (node: unknown, path: (string | number)[], pair: Pair | undefined): void => {
      const key = placeKey(path);
      if (key in places) return;
      places[key] = placeOf(node, pair);
      for (const child of childrenOf(node)) visit(child.node, [...path, child.segment], child.pair);
    };
    visit(doc.contents, [], undefined);
    return { value, places };
  }

  const value = toPlainValue(doc, file, at, issues);
  return { source: { file, text, value, locate, locateInString, snapshot }, issues };
}

/** Most aliases a document may expand: past it (a "billion laughs" file) the file is a finding of its own. */
const maxAliasCount = 100;

/**
 * The document as plain data, or null with an error finding at its first alias where it expands past
 * `maxAliasCount` aliases (the yaml library then throws), so that one such file stops no other.
 */
function toPlainValue(
  doc: Document,
  file: string,
  at: (offset: number) => Position,
  issues: Issue[],
): unknown {
  try {
    return doc.toJS({ maxAliasCount });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let first = 0;
    visit(doc, {
      Alias(_key, node) {
        first = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    issues.push({
      file,
      ...at(first),
      severity: "error",
      rule: "yaml-syntax",
      message: `its aliases expand past ${maxAliasCount} copies (a document that grows without bound): write the values out, or use fewer aliases`,
    });
    return null;
  }
}

/** A plain copy of `process.env`, taken at the first parse; see withPlainEnv. */
let plainEnv: NodeJS.ProcessEnv | undefined;

/**
 * Runs synchronous work with `process.env` swapped for a plain copy of it. The yaml parser reads its debug
 * switch `process.env.LOG_TOKENS` once per token, and every read of the real `process.env` is a call into
 * C++ (bench/validate.js times the parse with and without the swap). One copy serves every parse, so the
 * parser sees the environment as it was at the first parse; nothing else runs meanwhile, and the original
 * is put back.
 */
function withPlainEnv<T>(work: () => T): T {
  const env = process.env;
  plainEnv ??= { ...env };
  process.env = plainEnv;
  try {
    return work();
  } finally {
    process.env = env;
  }
}

/** The nodes under a map's scalar keys or in a sequence, as `walk` steps into them. */
function childrenOf(node: unknown): { node: unknown; segment: string | number; pair: Pair | undefined }[] {
  if (isMap(node))
    return node.items.flatMap((item) =>
      isPair(item) && isScalar(item.key)
        ? [{ node: item.value ?? item.key, segment: String(item.key.value), pair: item }]
        : [],
    );
  if (isSeq(node)) return node.items.map((item, index) => ({ node: item, segment: index, pair: undefined }));
  return [];
}

interface Found {
  node: unknown;
  pair: Pair | undefined;
  complete: boolean;
}

/** Follows a path as far as it exists; `complete` says whether it got to the end. */
function walk(root: unknown, path: ValuePath): Found {
  let node = root;
  let pair: Pair | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const next = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (!next) return { node, pair, complete: false };
      pair = next;
      node = next.value ?? next.key;
    } else if (isSeq(node) && typeof segment === "number" && segment < node.items.length) {
      pair = undefined;
      node = node.items[segment];
    } else {
      return { node, pair, complete: false };
    }
  }
  return { node, pair, complete: true };
}

function isNodeWithRange(node: unknown): node is Node & { range: [number, number, number] } {
  return typeof node === "object" && node !== null && Array.isArray((node as Node).range);
}

/**
 * The indentation of a block scalar's content when each line of its value is the source line after it
 * (a literal block, or a folded one that folded nothing); undefined otherwise. Working it out from the
 * value itself also covers an indentation indicator (`|2`), which keeps some leading spaces in the value.
 */
function verbatimBlockIndent(
  value: string,
  sourceLine: (index: number) => string | undefined,
): number | undefined {
  const lines = value.split("\n");
  if (value.endsWith("\n")) lines.pop();
  const sample = lines.findIndex((line) => line !== "");
  const sampleSource = sourceLine(sample);
  if (sample < 0 || sampleSource === undefined) return undefined;
  const indent = sampleSource.length - (lines[sample] as string).length;
  const matches = (line: string, index: number) => {
    const source = sourceLine(index);
    return source !== undefined && source.slice(0, indent).trim() === "" && source.slice(indent) === line;
  };
  return indent >= 0 && lines.every(matches) ? indent : undefined;
}

import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, type Pair, parseDocument } from "yaml";
import type { Issue } from "./issue.js";

/** A path into a parsed value: object keys and array indexes. */
export type ValuePath = readonly (string | number)[];

/** A YAML file parsed with its source positions, so every value can be traced to its line and column. */
export interface YamlSource {
  file: string;
  text: string;
  value: unknown;
  locate(path: ValuePath, target?: "key" | "value"): Position;
  /** Maps a 1-based line and 0-based column inside the string at `path` to its place in the file. */
  locateInString(path: ValuePath, line: number, column: number): Position;
}

/** Formats a value path the way errors name places: `service_requests[0].field_mappings[2].value`. */
export function formatPath(path: ValuePath): string {
  return path
    .map((segment, index) => (typeof segment === "number" ? `[${segment}]` : index ? `.${segment}` : segment))
    .join("");
}

export interface Position {
  line: number;
  column: number;
}

/** Parses YAML text; syntax problems come back as `yaml-syntax` issues, never thrown. */
export function parseYamlSource(file: string, text: string): { source: YamlSource; issues: Issue[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  // After the first true syntax error the parser's later complaints are mostly echoes of it.
  const firstSyntaxError = doc.errors.find((error) => error.code !== "DUPLICATE_KEY");
  const problems = [
    ...doc.errors.filter((error) => error.code === "DUPLICATE_KEY" || error === firstSyntaxError),
    ...doc.warnings,
  ];
  const issues: Issue[] = problems.map((problem) => {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    return {
      file,
      line,
      column: col,
      severity: problem.name === "YAMLWarning" ? "warning" : "error",
      rule: "yaml-syntax",
      message: problem.message.replace(/ at line \d+, column \d+:?\s*$/s, ""),
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

  function locateInString(path: ValuePath, line: number, column: number): Position {
    const found = walk(doc.contents, path);
    if (!found.complete || !isScalar(found.node) || !found.node.range) return locate(path, "value");
    const start = at(found.node.range[0]);
    if (found.node.type === "BLOCK_LITERAL" || found.node.type === "BLOCK_FOLDED") {
      // Block content starts on the line after the `|` indicator, every line indented alike.
      const firstLine = start.line + 1;
      return { line: firstLine + line - 1, column: blockIndent(text, lineCounter, firstLine) + column + 1 };
    }
    const quote = found.node.type === "QUOTE_DOUBLE" || found.node.type === "QUOTE_SINGLE" ? 1 : 0;
    return line === 1
      ? { line: start.line, column: start.column + quote + column }
      : { line: start.line + line - 1, column: column + 1 };
  }

  return { source: { file, text, value: doc.toJS({ maxAliasCount: 100 }), locate, locateInString }, issues };
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

function blockIndent(text: string, lineCounter: LineCounter, line: number): number {
  for (let index = line - 1; index < lineCounter.lineStarts.length; index++) {
    const start = lineCounter.lineStarts[index] ?? text.length;
    const end = lineCounter.lineStarts[index + 1] ?? text.length;
    const content = text.slice(start, end);
    if (content.trim() !== "") return content.length - content.trimStart().length;
  }
  return 0;
}

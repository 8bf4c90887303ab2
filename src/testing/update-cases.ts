import { isMap, isNode, type Node, parseDocument, stringify } from "yaml";
import { expectedOutput, outputOf } from "./expectations.js";
import { isMatcher, markVolatile, matches } from "./matchers.js";
import type { CaseResult, LoadedTests } from "./run-tests.js";

/** A case `--update` rewrites: where it is, and the output it expects from now on. */
export interface CaseUpdate {
  entry: LoadedTests;
  index: number;
  output: unknown;
}

/** Whether a case's expected output differs from what it answered (and it answered one). */
export function outputDiffers(result: CaseResult): boolean {
  return (
    result.record !== undefined &&
    outputOf(result.record) !== undefined &&
    result.differences.some((difference) => difference.path.startsWith("expect.output"))
  );
}

/**
 * What a case expects after `--update`: its first run's output, masked, where every value its second run
 * answered otherwise (an id or a time a live system gave anew) is a `$type` matcher, and every matcher the
 * case had that still holds is kept.
 */
export function updatedOutput(first: CaseResult, second: CaseResult | undefined, old: unknown): unknown {
  const answered = (result: CaseResult | undefined) => {
    const output = result?.record && outputOf(result.record);
    return output && expectedOutput(output);
  };
  const value = answered(first);
  const again = answered(second);
  return keepMatchers(old, typeClockTimes(again === undefined ? value : markVolatile(value, again)));
}

const dateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
/** How near the update a time must be to be the clock's: two quick runs may fall in one second. */
const clockWindowMs = 15 * 60_000;

/**
 * `value` with every date-time near now as a `$type` matcher: a time a system or a hook took from the
 * clock as the case ran, which two runs within one second answer alike but the next run will not. A
 * time far from now (a mock's, a fixture's) is data and stays.
 */
function typeClockTimes(value: unknown, now = Date.now()): unknown {
  if (typeof value === "string" && dateTime.test(value)) {
    const time = Date.parse(value);
    return Math.abs(time - now) < clockWindowMs ? { $type: "string" } : value;
  }
  if (value === null || typeof value !== "object" || isMatcher(value)) return value;
  if (Array.isArray(value)) return value.map((item) => typeClockTimes(item, now));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, typeClockTimes(item, now)]));
}

/** `value`, with each of `old`'s matchers in its place wherever the matcher still holds there. */
function keepMatchers(old: unknown, value: unknown): unknown {
  if (isMatcher(old)) return matches(old, value) ? old : value;
  if (old === null || typeof old !== "object" || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item, index) => keepMatchers((old as unknown[])[index], item));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      keepMatchers((old as Record<string, unknown>)[key], item),
    ]),
  );
}

/**
 * The text of a test file with each update's `expect.output` replaced in place: only those bytes change,
 * so comments, quoting and layout everywhere else stay as written. A case without `expect.output` gets it
 * through the YAML document, which lays the file out anew.
 */
export function applyUpdates(text: string, updates: readonly CaseUpdate[]): string {
  const doc = parseDocument(text);
  const pathOf = (index: number) => ["cases", index, "expect", "output"];
  const nodes = updates.map(({ index }) => doc.getIn(pathOf(index), true));
  // A case without an expected output to replace gets one through the document, and so do the others.
  if (!nodes.every((node) => isNode(node) && node.range)) {
    for (const { index, output } of updates) doc.setIn(pathOf(index), doc.createNode(output));
    return doc.toString();
  }
  const splices = updates.map(({ output }, at) => spliceFor(text, nodes[at] as Node, output));
  let result = text;
  for (const { start, end, text: replacement } of splices.sort((a, b) => b.start - a.start))
    result = result.slice(0, start) + replacement + result.slice(end);
  return result;
}

/** The new value written where `node` stands: flow where it was flow, else block at its column. */
function spliceFor(text: string, node: Node, value: unknown): { start: number; end: number; text: string } {
  const [start, rangeEnd] = node.range as [number, number, number];
  const end = contentEnd(text, start, rangeEnd);
  // Only a block map stands on lines of its own: anything else starts on its key's line, where only flow fits.
  const flow = !isMap(node) || node.flow === true;
  if (flow)
    return { start, end, text: stringify(value, { collectionStyle: "flow", lineWidth: 0 }).trimEnd() };
  const column = start - (text.lastIndexOf("\n", start - 1) + 1);
  const lines = stringify(value, { lineWidth: 0 }).trimEnd().split("\n");
  return {
    start,
    end,
    text: lines.map((line, at) => (at === 0 ? line : " ".repeat(column) + line)).join("\n"),
  };
}

/**
 * Where a block value's own lines end: a collection's range runs on to the next key, over the blank and
 * comment lines before it, which belong to what follows and stay.
 */
function contentEnd(text: string, start: number, end: number): number {
  let last = start;
  let lineStart = start;
  while (lineStart < end) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 || newline > end ? end : newline;
    const line = text.slice(lineStart, lineEnd).trim();
    if (lineStart === start || (line !== "" && !line.startsWith("#"))) last = lineEnd;
    lineStart = lineEnd + 1;
  }
  return last;
}

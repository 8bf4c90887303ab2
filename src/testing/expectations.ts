import type { Item, OutputData, RunRecord } from "../engine/types.js";
import { isMatcher, type Matcher, matches } from "./matchers.js";
import type { Expectations } from "./test-file.js";

/** One way a run differs from what its case expects. */
export interface Difference {
  /** Where, e.g. `expect.output.payload.customer_id` or `expect.items[1]`. */
  path: string;
  message: string;
}

/**
 * Compares a run with its case's expectations (docs/behaviour.md#bass-test): state exactly, output as a subset, items as a
 * subsequence of subsets, and values that must appear nowhere in the record. The record is the masked one:
 * what `--update` writes back is what the next run compares with.
 */
export function checkExpectations(expect: Expectations, record: RunRecord): Difference[] {
  const differences: Difference[] = [];
  if (expect.state !== undefined && expect.state !== record.status) {
    differences.push({
      path: "expect.state",
      message: `expected ${expect.state}, the run ended in ${record.status}`,
    });
  }
  if (expect.output !== undefined) {
    const output = outputOf(record);
    if (!output) differences.push({ path: "expect.output", message: "the run recorded no output" });
    else compareSubset(expect.output, output, "expect.output", differences);
  }
  if (expect.items !== undefined) compareItems(expect.items, record.items, differences);
  if (expect.never_recorded !== undefined) {
    for (const [index, value] of expect.never_recorded.entries()) {
      if (containsText(record, String(value))) {
        differences.push({
          path: `expect.never_recorded[${index}]`,
          message: `a value that must never be recorded is in the run's record${whereFound(record, String(value))}`,
        });
      }
    }
  }
  return differences;
}

/** The OUTPUT item's data: what the run answered, masked. */
export function outputOf(record: RunRecord): Extract<Item, { kind: "OUTPUT" }>["data"] | undefined {
  const item = record.items.findLast((candidate) => candidate.kind === "OUTPUT");
  return item?.kind === "OUTPUT" ? item.data : undefined;
}

/** Whether `actual` holds everything `expected` says: objects by their keys, arrays element by element. */
export function isSubset(expected: unknown, actual: unknown): boolean {
  const found: Difference[] = [];
  compareSubset(expected, actual, "", found);
  return found.length === 0;
}

function compareSubset(expected: unknown, actual: unknown, path: string, differences: Difference[]): void {
  if (isMatcher(expected)) {
    if (!matches(expected, actual))
      differences.push({ path, message: `expected ${describeMatcher(expected)}, got ${describe(actual)}` });
  } else if (Array.isArray(expected)) compareList(expected, actual, path, differences);
  else if (expected !== null && typeof expected === "object")
    compareMap(expected as Record<string, unknown>, actual, path, differences);
  else if (!Object.is(expected, actual))
    differences.push({ path, message: `expected ${describe(expected)}, got ${describe(actual)}` });
}

/** A list holds exactly as many items as expected, each a subset of what it expects. */
function compareList(expected: unknown[], actual: unknown, path: string, differences: Difference[]): void {
  if (!Array.isArray(actual) || actual.length !== expected.length) {
    differences.push({ path, message: `expected ${describe(expected)}, got ${describe(actual)}` });
    return;
  }
  expected.forEach((item, index) => {
    compareSubset(item, actual[index], `${path}[${index}]`, differences);
  });
}

/** An object holds every key expected, each value a subset of what it expects; other keys may be there. */
function compareMap(
  expected: Record<string, unknown>,
  actual: unknown,
  path: string,
  differences: Difference[],
): void {
  if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
    differences.push({ path, message: `expected an object, got ${describe(actual)}` });
    return;
  }
  for (const [key, value] of Object.entries(expected)) {
    const next = `${path}.${key}`;
    if (!Object.hasOwn(actual, key))
      differences.push({ path: next, message: `expected ${describe(value)}, but there is no ${key}` });
    else compareSubset(value, (actual as Record<string, unknown>)[key], next, differences);
  }
}

/** Each expected item matches a later recorded item than the one before it. */
function compareItems(
  expected: readonly Record<string, unknown>[],
  items: readonly Item[],
  differences: Difference[],
): void {
  let from = 0;
  for (const [index, wanted] of expected.entries()) {
    const at = items.findIndex((item, position) => position >= from && isSubset(wanted, item));
    if (at >= 0) {
      from = at + 1;
      continue;
    }
    const kinds = items
      .slice(from)
      .map((item) => item.kind + ("label" in item && item.label ? ` ${item.label}` : ""));
    differences.push({
      path: `expect.items[${index}]`,
      message: `no item ${describe(wanted)} after item ${from}; the run recorded ${kinds.length ? kinds.join(", ") : "nothing more"}`,
    });
    return;
  }
}

function whereFound(record: RunRecord, value: string): string {
  const item = record.items.find((candidate) => containsText(candidate, value));
  return item ? ` (in item ${item.seq}, ${item.kind})` : "";
}

/** Whether a text occurs in any string, key or number of a value (not in its JSON, where quotes are escaped). */
function containsText(value: unknown, text: string): boolean {
  if (typeof value === "string") return value.includes(text);
  if (typeof value === "number" || typeof value === "bigint") return String(value).includes(text);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => containsText(item, text));
  return Object.entries(value).some(([key, item]) => key.includes(text) || containsText(item, text));
}

/**
 * A run's output as a case expects it (`--update`, `promote`): masked, without the run's own id, which the
 * default failure output carries and no other run will have.
 */
export function expectedOutput(output: OutputData): Partial<OutputData> {
  const payload = structuredClone(output.payload);
  const error = (payload as { error?: Record<string, unknown> } | null)?.error;
  if (error && typeof error === "object" && "run_id" in error) delete error.run_id;
  return {
    status: output.status,
    ...(Object.keys(output.headers).length ? { headers: output.headers } : {}),
    payload,
  };
}

function describeMatcher(matcher: Matcher): string {
  if ("$type" in matcher) return `a value of type ${matcher.$type}`;
  if ("$match" in matcher) return `a string matching /${matcher.$match}/`;
  return "any value";
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

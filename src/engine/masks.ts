import { BassError } from "../errors.js";
import { escapeRegExp } from "../escape-regexp.js";
import { setOwn } from "../objects.js";
import type { CompiledCell } from "./cell.js";
import type { CompiledMask } from "./compile.js";
import { findMatches } from "./paths.js";
import { callCell, type RunState, reached, took, withBindings } from "./run-state.js";
import type { RunRecord } from "./types.js";

/** What a mask puts in place of the value it hides (docs/reference.md#masks). */
export const maskText = "XXXXXXXXXXXX";

/** Shorter values are not masked by value: they would blank out unrelated text everywhere. */
export const shortestMaskedValue = 4;

/**
 * Applies masks to `target` (a copy the caller owns: the live data is never changed), remembering every
 * replaced value for masking by value. Returns the masks that replaced fewer values than they must.
 */
export function applyMasks(
  state: RunState,
  masks: readonly CompiledMask[],
  target: unknown,
  bindings: Record<string, unknown> = {},
): CompiledMask[] {
  const short: CompiledMask[] = [];
  for (const mask of masks) {
    const count = withBindings(state, bindings, () => applyMask(state, mask, target));
    if (mask.minimum > 0 && count < mask.minimum) short.push(mask);
  }
  return short;
}

function applyMask(state: RunState, mask: CompiledMask, target: unknown): number {
  const scopes = mask.applyToEach
    ? findMatches(target, mask.applyToEach).flatMap(({ value }) =>
        Array.isArray(value) ? value.map((item, index) => ({ item, index })) : [],
      )
    : [{ item: target, index: null as number | null }];
  let count = 0;
  for (const { item, index } of scopes) {
    const applyIf = mask.applyIf;
    const applies =
      !applyIf ||
      took(
        state,
        applyIf,
        withBindings(state, { mitem: state.integration.realm.adopt(item), midx: index }, () =>
          decideNow(state, applyIf),
        ),
      );
    if (!applies) continue;
    reached(state, mask.site);
    for (const match of findMatches(item, mask.field)) {
      rememberMasked(state.maskedValues, match.value);
      (match.parent as Record<string | number, unknown>)[match.key] = maskText;
      count++;
    }
  }
  return count;
}

/**
 * A mask's `apply_if`, which decides at once: INPUT masks apply before any wait, so that an async run's
 * first record holds no masked value. A promise fails the cell.
 */
function decideNow(state: RunState, cell: CompiledCell): unknown {
  const value = callCell(state, cell);
  if (!(value instanceof Promise)) return value;
  // Its outcome is not waited for, so that its failure is no unhandled rejection.
  value.catch(() => {});
  throw new BassError(
    "CELL_ERROR",
    `${state.integration.name}: ${cell.label}: gives a promise, and a mask's apply_if must decide at once`,
    { cell: cell.label },
  );
}

/** Adds a value (every leaf of an object) to the values masked by value. */
export function rememberMasked(values: Set<string>, value: unknown): void {
  if (value === null || value === undefined) return;
  if (typeof value === "object") {
    for (const item of Object.values(value)) rememberMasked(values, item);
    return;
  }
  const text = String(value);
  if (text.length >= shortestMaskedValue) values.add(text);
}

/** Header names whose values are always masked, wherever they appear (docs/reference.md#masks). */
const sensitiveHeaders = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"];
const sensitiveHeader = new RegExp(`^(?:${sensitiveHeaders.join("|")})$`, "i");
// Every string in a record is checked against its key: most keys are ruled out by their length alone.
const sensitiveLengths = new Set(sensitiveHeaders.map((name) => name.length));

function isSensitiveHeader(key: string): boolean {
  return sensitiveLengths.has(key.length) && sensitiveHeader.test(key);
}

/**
 * A function that masks, in place, values wherever they occur — whole or inside a longer string — and the
 * values of sensitive headers, in a JSON-safe value that the caller owns (the run's own snapshots).
 */
export function createScrubber(values: Iterable<string>): <T>(value: T) => T {
  const list = [...new Set(values)]
    .filter((value) => value.length >= shortestMaskedValue)
    .sort((a, b) => b.length - a.length);
  return list.length === 0 ? headersOnly : buildScrubber(list);
}

/** The scrubber of `list`: values to mask, longest first. */
function buildScrubber(list: readonly string[]): <T>(value: T) => T {
  const pattern = list.length ? patternOf(list) : undefined;
  // Most strings hold no masked value: a few substring searches rule that out faster than the pattern.
  const screen = list.length <= 8 ? list : undefined;
  const holdsOne = (text: string) => screen === undefined || screen.some((value) => text.includes(value));
  const scrubText = (text: string) =>
    pattern && text.length >= shortestMaskedValue && holdsOne(text) ? text.replace(pattern, maskText) : text;
  const scrubLeaf = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string") {
      return key !== undefined && isSensitiveHeader(key) ? maskText : scrubText(value);
    }
    if (pattern && (typeof value === "number" || typeof value === "bigint")) {
      const text = String(value);
      const masked = scrubText(text);
      return masked === text ? value : masked;
    }
    return value;
  };
  const scrubList = (list: unknown[]): void => {
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      if (item !== null && typeof item === "object") scrub(item);
      else list[index] = scrubLeaf(item, undefined);
    }
  };
  const scrubMap = (record: Record<string, unknown>): void => {
    for (const name of Object.keys(record)) {
      const item = record[name];
      if (item !== null && typeof item === "object") scrub(item);
      else record[name] = scrubLeaf(item, name);
      // A key can hold a masked value too: it is renamed, its value kept.
      const maskedName = scrubText(name);
      if (maskedName === name) continue;
      const moved = record[name];
      delete record[name];
      setOwn(record, maskedName, moved);
    }
  };
  const scrub = (value: object): void => {
    if (Array.isArray(value)) scrubList(value);
    else scrubMap(value as Record<string, unknown>);
  };
  return <T>(value: T) => {
    if (value !== null && typeof value === "object") scrub(value);
    return scrubLeaf(value, undefined) as T;
  };
}

/**
 * Masks a run record in place: the content of its items (payloads, headers, messages, labels, data), never
 * its structure (ids, kinds, levels, keys of the record itself), so it stays a history record whatever was masked.
 */
export function maskRecord(record: RunRecord, scrub: <T>(value: T) => T): RunRecord {
  for (const item of record.items) {
    switch (item.kind) {
      case "INPUT":
        item.data = scrub(item.data);
        break;
      case "REQUEST":
        item.request = scrub(item.request);
        if (item.response) item.response = scrub(item.response);
        break;
      case "VALIDATION_FAILURE":
        item.label = scrub(item.label);
        item.message = scrub(item.message);
        break;
      case "DEBUG":
        if (item.label !== undefined) item.label = scrub(item.label);
        item.data = scrub(item.data);
        break;
      case "LOG":
        item.data = scrub(item.data);
        break;
      case "FAILURE":
        item.error.message = scrub(item.error.message);
        break;
      case "OUTPUT":
        item.data = scrub(item.data);
        break;
    }
  }
  record.labels = record.labels.map((label) => scrub(label));
  return record;
}

/** The last pattern `patternOf` made, and the list it matches. */
const lastPattern: { list: readonly string[]; pattern: RegExp | undefined } = {
  list: [],
  pattern: undefined,
};

/**
 * The pattern matching any of `list`. Runs in a row mostly mask the same values (a served customer's tax
 * id, the project's secrets): the last pattern is kept. Sharing a global RegExp is safe for `replace`,
 * which starts at 0 and leaves `lastIndex` at 0.
 */
function patternOf(list: readonly string[]): RegExp {
  const last = lastPattern.list;
  const same = list.length === last.length && list.every((value, index) => value === last[index]);
  if (lastPattern.pattern === undefined || !same) {
    lastPattern.pattern = new RegExp(list.map(escapeRegExp).join("|"), "g");
    lastPattern.list = list;
  }
  return lastPattern.pattern;
}

// Most runs mask no value: they share one scrubber of sensitive headers instead of making their own.
const headersOnly = buildScrubber([]);

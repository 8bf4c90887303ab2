import type { CompiledMask, CompiledPath } from "./compile.js";
import { findMatches, type ResolvedSegment } from "./paths.js";
import { callOptional, type RunState, withBindings } from "./run-state.js";

/** What a mask puts in place of the value it hides (SPEC §4.8). */
export const maskText = "XXXXXXXXXXXX";

/** Shorter values are not masked by value: they would blank out unrelated text everywhere. */
const shortestMaskedValue = 4;

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
    ? findMatches(target, staticPath(mask.applyToEach)).flatMap(({ value }) =>
        Array.isArray(value) ? value.map((item, index) => ({ item, index })) : [],
      )
    : [{ item: target, index: null as number | null }];
  let count = 0;
  for (const { item, index } of scopes) {
    const applies = mask.applyIf
      ? withBindings(state, { mitem: item, midx: index }, () => callOptional(state, mask.applyIf))
      : true;
    if (!applies) continue;
    for (const match of findMatches(item, staticPath(mask.field))) {
      rememberMasked(state.maskedValues, match.value);
      (match.parent as Record<string | number, unknown>)[match.key] = maskText;
      count++;
    }
  }
  return count;
}

/** Mask paths hold names, indexes and `[*]` only (validate's field-path rule). */
function staticPath(path: CompiledPath): (ResolvedSegment | { kind: "wildcard" })[] {
  return path.filter(
    (segment): segment is ResolvedSegment | { kind: "wildcard" } => segment.kind !== "expression",
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

/** Header names whose values are always masked, wherever they appear (SPEC §4.8). */
const sensitiveHeaders = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
]);

/**
 * A function that masks values wherever they occur — whole or inside a longer string — in a JSON-safe
 * value, and the values of sensitive headers; it returns a masked copy.
 */
export function createScrubber(values: Iterable<string>): <T>(value: T) => T {
  const list = [...new Set(values)]
    .filter((value) => value.length >= shortestMaskedValue)
    .sort((a, b) => b.length - a.length);
  const pattern = list.length ? new RegExp(list.map(escapeRegExp).join("|"), "g") : undefined;
  const scrubText = (text: string) =>
    pattern && text.length >= shortestMaskedValue ? text.replace(pattern, maskText) : text;
  const scrub = (value: unknown, key?: string): unknown => {
    if (typeof value === "string")
      return key && sensitiveHeaders.has(key.toLowerCase()) ? maskText : scrubText(value);
    if (typeof value === "number" || typeof value === "bigint") {
      const text = String(value);
      const masked = scrubText(text);
      return masked === text ? value : masked;
    }
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => scrub(item));
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      Object.defineProperty(copy, scrubText(name), {
        value: scrub(item, name),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return <T>(value: T) => scrub(value) as T;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// Matchers a case may write where it expects a value that is not the same from run to run (docs/behaviour.md#bass-test):
// `{ $type: string }`, `{ $match: "^TR\\d+$" }`, `{ $any: true }`. An object with one of these keys and no
// other is a matcher, never a value.

/** The types `$type` names: JSON's, with `integer` for a whole number. */
export const matcherTypes = ["string", "number", "integer", "boolean", "object", "array", "null"] as const;
export type MatcherType = (typeof matcherTypes)[number];

export type Matcher = { $type: MatcherType } | { $match: string } | { $any: true };

/** Whether `value` is a matcher: one key of `$type`, `$match` or `$any`. */
export function isMatcher(value: unknown): value is Matcher {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === "$type" || keys[0] === "$match" || keys[0] === "$any");
}

/** Whether `actual` is what `matcher` allows. */
export function matches(matcher: Matcher, actual: unknown): boolean {
  if ("$any" in matcher) return actual !== undefined;
  if ("$match" in matcher) return typeof actual === "string" && new RegExp(matcher.$match, "u").test(actual);
  return typeOf(actual) === matcher.$type || (matcher.$type === "number" && typeOf(actual) === "integer");
}

/** The `$type` a value has: `integer` for a whole number. */
export function typeOf(value: unknown): MatcherType | "undefined" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "object") return "object";
  return "undefined";
}

/**
 * `first` with every value that `second` has otherwise replaced by a `$type` matcher: what two runs of a
 * case answered alike stays exact, an id or time a live system gave anew becomes its type.
 */
export function markVolatile(first: unknown, second: unknown): unknown {
  if (Array.isArray(first)) {
    if (!Array.isArray(second) || second.length !== first.length) return { $type: "array" };
    return first.map((item, index) => markVolatile(item, second[index]));
  }
  if (first !== null && typeof first === "object") {
    if (second === null || typeof second !== "object" || Array.isArray(second)) return { $type: "object" };
    return Object.fromEntries(
      Object.entries(first).map(([key, value]) => [
        key,
        Object.hasOwn(second, key)
          ? markVolatile(value, (second as Record<string, unknown>)[key])
          : { $any: true },
      ]),
    );
  }
  if (Object.is(first, second)) return first;
  const [a, b] = [typeOf(first), typeOf(second)];
  if (a === b && a !== "undefined") return { $type: a };
  const numeric = (type: string) => type === "integer" || type === "number";
  return numeric(a) && numeric(b) ? { $type: "number" } : { $any: true };
}

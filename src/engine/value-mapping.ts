import type { ValueMappingSet } from "../definition/types.js";

/**
 * Builds the lookup of one set: `String(value)` against `String(from)`, both lower-cased unless
 * `case_sensitive`; the first mapping of a `from` wins. A miss gives `default_to_value` when the set
 * has that key (even ""), else the value unchanged.
 */
export function createValueMapper(set: ValueMappingSet): (value: unknown) => unknown {
  const fold = set.case_sensitive === true ? (text: string) => text : (text: string) => text.toLowerCase();
  const targets = new Map<string, string>();
  for (const { from, to } of set.mappings) {
    const key = fold(String(from));
    if (!targets.has(key)) targets.set(key, to);
  }
  const hasDefault = Object.hasOwn(set, "default_to_value");
  const fallback = set.default_to_value;
  return (value) => {
    const key = fold(String(value));
    if (targets.has(key)) return targets.get(key);
    return hasDefault ? fallback : value;
  };
}

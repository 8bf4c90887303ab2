import type { ValueMappingSet } from "../definition/types.js";

const mappers = new WeakMap<ValueMappingSet, (value: unknown) => unknown>();

/** Looks `value` up in a value mapping set (SPEC §4.7), with the set's lookup table built once. */
export function mapValue(set: ValueMappingSet, value: unknown): unknown {
  let mapper = mappers.get(set);
  if (!mapper) {
    mapper = createValueMapper(set);
    mappers.set(set, mapper);
  }
  return mapper(value);
}

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

import { isObject } from "../objects.js";

/**
 * The items of a list that are objects, each with its index. Rules also walk files that failed the
 * schema, so a list may be a string and an item may be null: those are skipped, as the schema's own
 * findings already say what is wrong with them.
 */
export function objectItems<T extends object>(list: readonly T[] | undefined): [item: T, index: number][] {
  if (!Array.isArray(list)) return [];
  const items: [T, number][] = [];
  for (const [index, item] of (list as unknown[]).entries()) {
    if (isObject(item)) items.push([item as T, index]);
  }
  return items;
}

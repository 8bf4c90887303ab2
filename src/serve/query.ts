import { setOwn } from "../objects.js";

/** A query string as `input.params` (docs/reference.md#cells-namespace-and-special-functions): one value as a string, a repeated name as a list. */
export function parseQuery(search: URLSearchParams): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    setOwn(params, name, values.length === 1 ? (values[0] as string) : values);
  }
  return params;
}

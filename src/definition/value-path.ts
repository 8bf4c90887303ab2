/** A path into a parsed value: object keys and array indexes. */
export type ValuePath = readonly (string | number)[];

/** A place in a file: 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Formats a value path the way errors name places: `service_requests[0].field_mappings[2].value`. A key
 * that is not a plain name is quoted, `systems["core api"]`, so that no key prints raw into a terminal.
 */
export function formatPath(path: ValuePath): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      if (!/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index ? `.${segment}` : segment;
    })
    .join("");
}

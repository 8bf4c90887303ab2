import { resolve } from "node:path";
import { scrubError } from "../engine/scrub-error.js";
import type { Item, RunRecord } from "../engine/types.js";

export const redacted = "*REDACTED*";

/** The record with its INPUT, OUTPUT and REQUEST payloads replaced by `*REDACTED*`; the record itself is left alone. */
export function applyRedaction(record: RunRecord): RunRecord {
  return { ...record, items: record.items.map(redactItem) };
}

function redactItem(item: Item): Item {
  switch (item.kind) {
    case "INPUT":
      return { ...item, data: { ...item.data, payload: redacted } };
    case "OUTPUT":
      return { ...item, data: { ...item.data, payload: redacted } };
    case "REQUEST":
      return {
        ...item,
        request: { ...item.request, payload: redacted },
        response: item.response && { ...item.response, payload: redacted },
      };
    default:
      return item;
  }
}

/**
 * The secrets the store masks in its errors, given the folder `configDir` resolved to `dir`. Resolving
 * rewrites a path (`./`, a trailing `/`, `//`, `..`), so that a secret in `history.dir` may no longer be
 * found as it was: the folder, and each such secret as a resolved path, are secrets too.
 */
export function historySecrets(
  projectDir: string,
  configDir: string | undefined,
  dir: string,
  secrets: readonly string[],
): readonly string[] {
  const named = secrets.filter((secret) => configDir?.includes(secret));
  return named.length ? [...secrets, dir, ...named.map((secret) => resolve(projectDir, secret))] : secrets;
}

/**
 * What `work` gives, or its error with the secrets masked: an error names the history folder and quotes
 * the system's message, which names it again, and the folder's path may come from the environment.
 */
export async function maskingErrors<T>(secrets: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw scrubError(error, secrets);
  }
}

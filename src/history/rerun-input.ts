import { maskText } from "../engine/masks.js";
import type { RunInput, RunRecord } from "../engine/types.js";
import type { Sealer } from "../state/seal.js";
import { isCutText } from "./cut.js";
import { openRequest } from "./kept-request.js";
import { redacted } from "./redact.js";
import type { HistoryStore } from "./store.js";

/** The request a re-run sends: exact when its sealed copy opened, else the record's, masked values and all. */
export interface RerunRequest {
  input: RunInput;
  exact: boolean;
  /** Why it is not exact: no request was kept with the record, or it does not open with this state key. */
  inexact?: "not kept" | "another state key" | undefined;
  /** Where the record's request holds a masked value, which the re-run gets masked (`payload.tax_id`). */
  masked: string[];
}

/** A recorded run and the request to run it again with; undefined when there is no such run. */
export interface Rerun {
  record: RunRecord;
  /** Undefined for a run without an INPUT item (a worker died before it could say): nothing to send. */
  request: RerunRequest | undefined;
}

/**
 * Run `id` of the history, with its request: the sealed one kept with it, opened with `sealer()` (called
 * only when there is one), else the masked one of its record.
 */
export async function findRerun(
  history: HistoryStore,
  id: string,
  sealer: () => Promise<Sealer>,
): Promise<Rerun | undefined> {
  const stored = await history.readStored(id);
  if (!stored) return undefined;
  const { record, sealedRequest } = stored;
  const kept = sealedRequest === undefined ? undefined : openRequest(await sealer(), id, sealedRequest);
  if (kept) return { record, request: { input: kept, exact: true, masked: [] } };
  const item = record.items.find((candidate) => candidate.kind === "INPUT");
  if (item?.kind !== "INPUT") return { record, request: undefined };
  const { method, fullpath, path, params, headers, payload } = item.data;
  return {
    record,
    request: {
      input: { method, fullpath, path, params, headers, payload },
      exact: false,
      inexact: sealedRequest === undefined ? "not kept" : "another state key",
      masked: maskedPaths(item.data, ""),
    },
  };
}

/**
 * The paths of the texts in `value` that hold a masked value, that `store_payloads: false` left out, or that
 * `history.max_item_bytes` cut.
 */
function maskedPaths(value: unknown, at: string): string[] {
  if (typeof value === "string")
    return value.includes(maskText) || value === redacted || isCutText(value) ? [at] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    maskedPaths(inner, Array.isArray(value) ? `${at}[${key}]` : at ? `${at}.${key}` : key),
  );
}

import { maskText } from "../engine/masks.js";
import type { RunRecord } from "../engine/record.js";
import type { RunInput } from "../engine/run.js";
import { BassError } from "../errors.js";
import { redacted } from "./redact.js";

/** The request a re-run sends: exact when its sealed copy opened, else the record's, masked values and all. */
export interface RerunRequest {
  input: RunInput;
  exact: boolean;
  /** Where the record's request holds a masked value, which the re-run gets masked (`payload.tax_id`). */
  masked: string[];
}

/** What run `record` is re-run with: `kept`, its sealed request opened, or else its masked INPUT item. */
export function rerunRequest(record: RunRecord, kept: RunInput | undefined): RerunRequest {
  if (kept) return { input: kept, exact: true, masked: [] };
  const item = record.items.find((candidate) => candidate.kind === "INPUT");
  if (item?.kind !== "INPUT")
    throw new BassError("INPUT_INVALID", `run ${record.id} has no INPUT item to run again`);
  const { method, fullpath, path, params, headers, payload } = item.data;
  return {
    input: { method, fullpath, path, params, headers, payload },
    exact: false,
    masked: maskedPaths(item.data, ""),
  };
}

/** The paths of the texts in `value` that hold a masked value, or that `store_payloads: false` left out. */
function maskedPaths(value: unknown, at: string): string[] {
  if (typeof value === "string") return value.includes(maskText) || value === redacted ? [at] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    maskedPaths(inner, Array.isArray(value) ? `${at}[${key}]` : at ? `${at}.${key}` : key),
  );
}

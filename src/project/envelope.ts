import type { RunInput } from "../engine/types.js";
import { BassError } from "../errors.js";

/** The keys of a request envelope: the body as `payload`, and the rest of the request around it. */
export const envelopeKeys = ["payload", "method", "path", "params", "headers", "fullpath"] as const;

/**
 * A request envelope `{ payload, method, path, params, headers, fullpath }` as a run's input, checked:
 * `label` names where it came from in the message of what is wrong with it. `fullpath` is the request's
 * path as the platform's run histories hold it (`/integrations/execute/name?x=1`).
 */
export function envelopeInput(value: unknown, label: string): RunInput {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BassError(
      "INPUT_INVALID",
      `${label}: an input envelope is an object { ${envelopeKeys.join(", ")} }`,
    );
  }
  const { payload, method, path, params, headers, fullpath, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw new BassError(
      "INPUT_INVALID",
      `${label}: unknown envelope key ${JSON.stringify(unknown[0])}; an envelope has ${envelopeKeys.join(", ")}`,
    );
  const objectOf = (key: string, item: unknown) => {
    if (item === undefined) return undefined;
    if (item === null || typeof item !== "object" || Array.isArray(item))
      throw new BassError("INPUT_INVALID", `${label}: envelope ${key} must be an object`);
    return item as Record<string, string>;
  };
  if (method !== undefined && typeof method !== "string")
    throw new BassError("INPUT_INVALID", `${label}: envelope method must be a string such as "GET"`);
  if (fullpath !== undefined && typeof fullpath !== "string")
    throw new BassError(
      "INPUT_INVALID",
      `${label}: envelope fullpath must be a string such as "/customers/42"`,
    );
  return {
    payload: payload ?? {},
    method,
    ...(fullpath !== undefined && { fullpath }),
    path: objectOf("path", path),
    params: objectOf("params", params),
    headers: objectOf("headers", headers),
  };
}

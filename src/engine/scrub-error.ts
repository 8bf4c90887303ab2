import { BassError, isBassError } from "../errors.js";
import { createScrubber } from "./masks.js";

/**
 * The error with each secret in its message masked: an adapter module's own error, or a module path taken from
 * the environment, may quote one. A BassError keeps its code; an error with nothing to mask is returned as is.
 */
export function scrubError(error: unknown, secrets: Iterable<string>): unknown {
  if (!(error instanceof Error)) return error;
  const message = createScrubber(secrets)(error.message);
  if (message === error.message) return error;
  return isBassError(error) ? new BassError(error.code, message) : new Error(message);
}

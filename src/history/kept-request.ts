import type { RunInput } from "../engine/run.js";
import type { Sealer } from "../state/seal.js";

/**
 * A run's request as it came, kept sealed with the state key beside its masked record, so that a re-run
 * is exact: the record holds only masked values. A byte-string body is kept as base64.
 */
export function sealRequest(sealer: Sealer, runId: string, input: RunInput): string {
  const payload =
    input.payload instanceof Uint8Array
      ? { $bytes: Buffer.from(input.payload).toString("base64") }
      : input.payload;
  return sealer.seal(Buffer.from(JSON.stringify({ ...input, payload })), context(runId));
}

/** The request `sealRequest` kept for run `runId`, or undefined when it does not open with this key. */
export function openRequest(sealer: Sealer, runId: string, sealed: string): RunInput | undefined {
  const plain = sealer.open(sealed, context(runId));
  if (!plain) return undefined;
  const input = JSON.parse(plain.toString("utf8")) as RunInput;
  const bytes = (input.payload as { $bytes?: unknown } | null)?.$bytes;
  return typeof bytes === "string"
    ? { ...input, payload: new Uint8Array(Buffer.from(bytes, "base64")) }
    : input;
}

/** A sealed request opens only as the request of its own run. */
function context(runId: string): string {
  return `request\u0000${runId}`;
}

import { isUint8Array } from "node:util/types";
import { cellKey } from "../definition/cells.js";
import { errorMessage } from "../errors.js";
import { unknownTask } from "../python/watchdog.js";
import { defaultFailureOutput } from "./failure.js";
import { wireHeaders } from "./output-headers.js";
import { type ReadOutput, readOutput } from "./output-read.js";
import { addItem, currentOutput, type RunState } from "./run-state.js";
import { bytesPreview, snapshot } from "./snapshot.js";
import type { OutputData } from "./types.js";

/** The output a run ends with, and its payload's JSON text when it is sent as JSON (made once, while checking). */
export interface CheckedOutput {
  output: OutputData;
  json: string | undefined;
  /** The payload is still the engine's own default failure output, untouched by a hook. */
  isDefault: boolean;
}

/** What the output check is known by to the pool's watch, as a cell is: it reads what cells made. */
const outputKey = cellKey("output");

/**
 * Checks the output as docs/behaviour.md#what-a-run-sends says: read once, within a cell's time limit, then
 * checked as plain data. A bad output fails the run and becomes the default failure output (500; 504 when
 * reading it ran out of time), without the Content-Type.
 */
export function checkOutput(state: RunState): CheckedOutput {
  const { realm } = state.integration;
  const call = realm.createCall(
    performance.now() + state.cellTimeoutMs,
    state.poolTask ?? unknownTask,
    outputKey,
  );
  const live = currentOutput(state);
  let read: ReadOutput;
  try {
    read = realm.readValues(call, () => readOutput(live, state.outputBytes));
  } catch (error) {
    read = { problem: `output cannot be read: ${errorMessage(error)}` };
  }
  if (call.expired)
    return failOutput(state, "timeout", "reading the output ran past the cell time limit", []);
  const checked = inspectOutput(read, state.outputBytes);
  if (checked.problem !== undefined) return failOutput(state, "error", checked.problem, checked.headers);
  for (const name of checked.dropped)
    addItem(state, {
      kind: "LOG",
      level: "warn",
      data: `output.headers.${name} was not sent: framing and hop-by-hop headers are bass's to set (docs/behaviour.md#what-a-run-sends)`,
    });
  const isDefault = state.defaultPayload !== undefined && checked.payloadRead === state.defaultPayload;
  return { output: checked.output, json: checked.json, isDefault };
}

/** Fails the run for its output, which becomes the default failure output. */
function failOutput(
  state: RunState,
  kind: "error" | "timeout",
  problem: string,
  headers: readonly [string, string][],
): CheckedOutput {
  const code = kind === "timeout" ? "cell_timeout" : "output_invalid";
  addItem(state, { kind: "FAILURE", error: { code, message: problem } });
  state.failure = kind;
  const fallback = defaultFailureOutput(kind, [problem], state.id);
  fallback.headers = Object.fromEntries(headers.filter(([name]) => name.toLowerCase() !== "content-type"));
  // Promise work a cell left may still read the output: what it finds is the realm's.
  state.namespace.output = state.integration.realm.adopt(fallback);
  state.defaultPayload = fallback.payload;
  return { output: fallback, json: undefined, isDefault: true };
}

type Inspected =
  | { problem: string; headers: [string, string][] }
  | {
      problem?: never;
      output: OutputData;
      json: string | undefined;
      /** The headers a cell may not set, left out. */
      dropped: string[];
      payloadRead: unknown;
    };

/** What is wrong with the output as read, or, when nothing is, the output to send. */
function inspectOutput(read: ReadOutput, maxBytes: number): Inspected {
  if (read.problem !== undefined) return { problem: read.problem, headers: [] };
  const { status, headers } = read;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599)
    return { problem: statusProblem(status), headers: [] };
  if (headers === undefined) return { problem: "output.headers must be an object", headers: [] };
  const wire = wireHeaders(headers);
  if (wire.problem !== undefined) return { problem: wire.problem, headers: [] };
  const hasContentType = wire.headers.some(([name]) => name.toLowerCase() === "content-type");
  const fail = (problem: string) => ({ problem, headers: wire.headers });
  if (hasContentType && read.payload === undefined)
    return fail("output.payload must be a byte string when Content-Type is set");
  const problem = payloadProblem(read, maxBytes);
  if (problem !== undefined) return fail(problem);
  const json = read.json;
  const payload = json === undefined ? read.payload : JSON.parse(json);
  const output = { status: status as number, headers: Object.fromEntries(wire.headers), payload };
  return { output, json, dropped: wire.dropped, payloadRead: read.payloadRead };
}

/** What keeps the payload from being sent: its size past `limits.output_bytes`, or no JSON for it. */
function payloadProblem(read: ReadOutput & { problem?: never }, maxBytes: number): string | undefined {
  if (read.payload !== undefined)
    return read.payload.byteLength > maxBytes ? tooLarge(read.payload.byteLength, maxBytes) : undefined;
  if (read.tooLong) return tooLarge(undefined, maxBytes);
  if (read.json === undefined) return `output.payload cannot be sent as JSON${read.jsonProblem ?? ""}`;
  // A UTF-8 byte is at least a character: only a long text is counted in bytes.
  const { json } = read;
  if (json.length > maxBytes / 3 && Buffer.byteLength(json) > maxBytes)
    return tooLarge(Buffer.byteLength(json), maxBytes);
  return undefined;
}

function statusProblem(status: unknown): string {
  const shown =
    typeof status === "number" || typeof status === "string" ? ` (${JSON.stringify(status)})` : "";
  if (Number.isInteger(status) && (status as number) >= 100 && (status as number) < 200)
    return `output.status${shown} is an interim status, which a client takes as no answer yet: an answer's status is 200 to 599`;
  return `output.status${shown} must be an HTTP status code (200 to 599)`;
}

/** `bytes` is the payload's size where it was measured whole, none where its JSON stopped at the limit. */
function tooLarge(bytes: number | undefined, maxBytes: number): string {
  const size = bytes === undefined ? `more than ${maxBytes} bytes as JSON` : `${bytes} bytes`;
  return `output.payload is ${size}, over limits.output_bytes (${maxBytes}): send less, or raise the limit in the project file`;
}

/** The output as history records it: byte strings as `{ bytes, preview }`. */
export function recordedOutput(output: OutputData): OutputData {
  const payload = isUint8Array(output.payload) ? bytesPreview(output.payload) : snapshot(output.payload);
  return { status: output.status, headers: snapshot(output.headers) as Record<string, string>, payload };
}

import { isUint8Array } from "node:util/types";
import { isObject } from "../objects.js";
import { defaultFailureOutput } from "./failure.js";
import { JsonTooLong, jsonText } from "./json-text.js";
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

/**
 * Checks the output as docs/behaviour.md#bass-serve says: with a Content-Type the payload must be a byte string. A bad output
 * fails the run and becomes the default failure output (500), without the Content-Type.
 */
export function checkOutput(state: RunState): CheckedOutput {
  const output = currentOutput(state);
  const checked = inspectOutput(output, state.outputBytes);
  if (checked.problem === undefined) {
    const isDefault = state.defaultPayload !== undefined && output.payload === state.defaultPayload;
    return { output: release(output, checked.json), json: checked.json, isDefault };
  }
  const problem = checked.problem;
  addItem(state, { kind: "FAILURE", error: { code: "output_invalid", message: problem } });
  state.failure = "error";
  const fallback = defaultFailureOutput("error", [problem], state.id);
  const headers = isObject(output?.headers) ? output.headers : {};
  fallback.headers = Object.fromEntries(
    Object.entries(headers).filter(([name]) => name.toLowerCase() !== "content-type"),
  );
  // Promise work a cell left may still read the output: what it finds is the realm's.
  state.namespace.output = state.integration.realm.adopt(fallback);
  state.defaultPayload = fallback.payload;
  return { output: fallback, json: undefined, isDefault: true };
}

type Inspected = { problem: string; json?: never } | { problem?: never; json: string | undefined };

/** What is wrong with the output, or, when nothing is, its payload as JSON text (none for a byte string). */
function inspectOutput(output: unknown, maxBytes: number): Inspected {
  if (!isObject(output)) return { problem: "output must be an object { status, headers, payload }" };
  const { status, headers, payload } = output as Partial<OutputData>;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599)
    return { problem: "output.status must be an HTTP status code (100 to 599)" };
  if (!isObject(headers)) return { problem: "output.headers must be an object" };
  const problem = headersProblem(headers);
  if (problem) return { problem };
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  if (hasContentType && !isUint8Array(payload))
    return { problem: "output.payload must be a byte string when Content-Type is set" };
  return inspectPayload(payload, maxBytes);
}

function headersProblem(headers: object): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!headerName.test(name))
      return `output.headers has a name HTTP does not allow: ${JSON.stringify(name)}`;
    if (typeof value !== "string" && typeof value !== "number")
      return `output.headers.${name} must be a string`;
    if (!headerValue.test(String(value)))
      return `output.headers.${name} holds characters HTTP does not allow (line breaks, or beyond Latin-1)`;
  }
  return undefined;
}

/** A byte string, or the JSON text of anything else, within `limits.output_bytes`. */
function inspectPayload(payload: unknown, maxBytes: number): Inspected {
  if (isUint8Array(payload))
    return payload.byteLength > maxBytes ? tooLarge(payload.byteLength, maxBytes) : { json: undefined };
  if (typeof payload === "function" || typeof payload === "symbol")
    return { problem: "output.payload cannot be sent as JSON" };
  // It is sent as JSON: a getter that throws, a cycle or a bigint cannot be.
  let json: string;
  try {
    json = jsonText(payload ?? null, maxBytes);
  } catch (error) {
    if (error instanceof JsonTooLong) return tooLarge(undefined, maxBytes);
    return { problem: `output.payload cannot be sent as JSON: ${(error as Error).message}` };
  }
  // A UTF-8 byte is at least a character: only a long text is counted in bytes.
  if (json.length > maxBytes / 3) {
    const bytes = Buffer.byteLength(json);
    if (bytes > maxBytes) return tooLarge(bytes, maxBytes);
  }
  return { json };
}

/** `bytes` is the payload's size where it was measured whole, none where its JSON stopped at the limit. */
function tooLarge(bytes: number | undefined, maxBytes: number): Inspected {
  const size = bytes === undefined ? `more than ${maxBytes} bytes as JSON` : `${bytes} bytes`;
  return {
    problem: `output.payload is ${size}, over limits.output_bytes (${maxBytes}): send less, or raise the limit in the project file`,
  };
}

/**
 * A checked output as plain data of bass's own realm, which is what leaves the cells' realm (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host):
 * a JSON payload as its JSON text reads, a byte string as a Buffer of its own.
 */
function release(output: OutputData, json: string | undefined): OutputData {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(output.headers)) headers[name] = value;
  const payload = json === undefined ? Buffer.from(output.payload as Uint8Array) : JSON.parse(json);
  return { status: output.status, headers, payload };
}

// RFC 9110: a header name is a token; a value holds no line breaks and no NUL, and Node sends it as Latin-1.
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const headerValue = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The output as history records it: byte strings as `{ bytes, preview }`. */
export function recordedOutput(output: OutputData): OutputData {
  const payload = isUint8Array(output.payload) ? bytesPreview(output.payload) : snapshot(output.payload);
  return { status: output.status, headers: snapshot(output.headers) as Record<string, string>, payload };
}

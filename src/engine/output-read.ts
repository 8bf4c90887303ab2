import { isUint8Array } from "node:util/types";
import { errorMessage } from "../errors.js";
import { isObject } from "../objects.js";
import { JsonTooLong, jsonText } from "./json-text.js";

/**
 * The output as read once from what the cells left, as plain data of bass's own: its status, each header's
 * name and value, and its payload as bytes or as JSON text. Nothing after this reads the cells' objects,
 * so a getter that answers differently the second time, a Proxy's trap or a `toJSON` runs here only
 * (src/engine/output.ts reads it within a cell's deadline).
 */
export type ReadOutput =
  | { problem: string }
  | {
      problem?: never;
      status: unknown;
      /** Undefined when `headers` is not an object. */
      headers: [string, unknown][] | undefined;
      payload: Buffer | undefined;
      /** The payload's JSON text, or why it has none; none for bytes. */
      json: string | undefined;
      jsonProblem: string | undefined;
      /** Its JSON text stopped once it was longer than the limit: it was never written whole. */
      tooLong?: boolean;
      /** The payload as the cells left it, to compare by identity only. */
      payloadRead: unknown;
    };

/**
 * Reads the output once: every value a cell made is touched here and nowhere after. A payload's JSON
 * stops being written past `maxBytes`, so a value too large to send is never one text whole.
 */
export function readOutput(output: unknown, maxBytes: number): ReadOutput {
  if (!isObject(output)) return { problem: "output must be an object { status, headers, payload }" };
  const status = output.status;
  const headers = readHeaders(output.headers);
  const payloadRead: unknown = output.payload;
  const read = { status, headers, payload: undefined, json: undefined, jsonProblem: undefined, payloadRead };
  if (isUint8Array(payloadRead)) return { ...read, payload: Buffer.from(payloadRead) };
  if (typeof payloadRead === "function" || typeof payloadRead === "symbol")
    return { ...read, jsonProblem: "" };
  try {
    return { ...read, json: jsonText(payloadRead ?? null, maxBytes) };
  } catch (error) {
    if (error instanceof JsonTooLong) return { ...read, tooLong: true };
    return { ...read, jsonProblem: `: ${errorMessage(error)}` };
  }
}

function readHeaders(headers: unknown): [string, unknown][] | undefined {
  if (!isObject(headers)) return undefined;
  const read: [string, unknown][] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    // Only text is sent: an object's own `toString` is not called.
    read.push([name, typeof value === "string" || typeof value === "number" ? String(value) : value]);
  }
  return read;
}

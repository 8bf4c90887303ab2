import { STATUS_CODES } from "node:http";
import { XMLParser } from "fast-xml-parser";
import { isObject } from "../objects.js";
import type { AdapterResponse } from "./adapter.js";

const ERROR_FIELDS = ["message", "error", "errorMessage", "detail", "title"];
const RAW_PAYLOAD_BYTES = 64 * 1024;
const MESSAGE_CHARS = 1024;

/** The most of a response body the adapter reads, 10 MiB (docs/behaviour.md#systems-and-adapters: no unbounded memory from a body). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

// Values stay strings: account numbers keep their leading zeros and money never becomes a float.
const xmlParser = new XMLParser({ ignoreAttributes: false, parseTagValue: false });

/** The adapter response for an HTTP answer: the body parsed by its content type, errors as messages. */
export function parseHttpResponse(
  status: number,
  contentType: string | string[] | undefined,
  text: string,
): AdapterResponse {
  const success = status >= 200 && status < 300;
  const statusLine = `${status} ${STATUS_CODES[status] ?? ""}`.trim();
  const messages = success ? [] : [statusLine];
  const type =
    String(contentType ?? "")
      .split(";")[0]
      ?.trim()
      .toLowerCase() ?? "";
  const kind = /^application\/json$|\+json$/.test(type)
    ? "JSON"
    : /^(application|text)\/xml$|\+xml$/.test(type)
      ? "XML"
      : "text";
  if (text.trim() === "") return { success, status, payload: null, messages };
  let payload: unknown;
  try {
    payload = kind === "JSON" ? JSON.parse(text) : kind === "XML" ? xmlParser.parse(text, true) : text;
  } catch (error) {
    const problem = `the response body is not valid ${kind} (content-type ${type}): ${(error as Error).message}`;
    return {
      success: false,
      status,
      payload: cutBytes(text, RAW_PAYLOAD_BYTES),
      messages: [...messages, problem],
    };
  }
  if (!success) messages.push(...errorTexts(payload));
  return { success, status, payload, messages };
}

/** The error text an error body carries: the body itself when it is text, else its usual error fields. */
function errorTexts(payload: unknown): string[] {
  if (typeof payload === "string") return [payload.trim().slice(0, MESSAGE_CHARS)];
  if (!isObject(payload)) return [];
  const texts: string[] = [];
  for (const field of ERROR_FIELDS) {
    const value = Object.hasOwn(payload, field) ? payload[field] : undefined;
    const text = isObject(value) && typeof value.message === "string" ? value.message : value;
    if (typeof text === "string" && text.trim() !== "" && !texts.includes(text))
      texts.push(text.slice(0, MESSAGE_CHARS));
  }
  return texts;
}

function cutBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= limit) return text;
  // A character cut in half decodes to U+FFFD; it is dropped.
  return bytes
    .subarray(0, limit)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
}

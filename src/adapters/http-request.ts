import { isUint8Array } from "node:util/types";
import { BassError } from "../errors.js";
import { isObject } from "../objects.js";

/** One HTTP request as the payload of a service call describes it (docs/behaviour.md#systems-and-adapters). */
export interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** The origin and path prefix of a system's base_url; throws an ADAPTER_UNAVAILABLE BassError when it is not http(s). */
export function parseBaseUrl(
  system: string,
  baseUrl: string | undefined,
): { origin: string; prefix: string } {
  let url: URL | undefined;
  try {
    url = baseUrl === undefined ? undefined : new URL(baseUrl);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new BassError(
      "ADAPTER_UNAVAILABLE",
      baseUrl === undefined
        ? `system ${system} uses the http adapter but has no base_url`
        : `system ${system}: base_url ${JSON.stringify(baseUrl)} is not an http:// or https:// URL`,
    );
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/** The request a payload describes, or what is wrong with the payload. */
export function prepareRequest(
  payload: unknown,
  prefix: string,
  systemHeaders: Record<string, string>,
): PreparedRequest | string {
  const fields = readPayload(payload);
  if (typeof fields === "string") return fields;
  const headers = mergeHeaders(systemHeaders, fields.headers);
  if (typeof headers === "string") return headers;
  const body = encodeBody(fields.body, headers);
  if (typeof body === "object" && "problem" in body) return body.problem;
  return {
    method: fields.method.toUpperCase(),
    path: requestPath(prefix, fields.servicePath, fields.params),
    headers: Object.fromEntries(headers.values()),
    body,
  };
}

interface PayloadFields {
  servicePath: string;
  method: string;
  body: unknown;
  params: Record<string, unknown>;
  headers: Record<string, unknown>;
}

/** The fields of a payload the request is made of, or what is wrong with them. */
function readPayload(payload: unknown): PayloadFields | string {
  if (!isFields(payload)) return "the http adapter needs a payload object with service_path and method";
  const { service_path, method, body, params, headers } = payload;
  if (typeof service_path !== "string" || service_path === "")
    return "the payload has no service_path (a path such as /core/v1/persons)";
  if (typeof method !== "string" || !/^[A-Za-z]+$/.test(method))
    return "the payload has no method (GET, POST, PUT, PATCH, DELETE or HEAD)";
  if (params !== undefined && params !== null && !isFields(params)) return "payload params must be an object";
  if (headers !== undefined && headers !== null && !isFields(headers))
    return "payload headers must be an object";
  return { servicePath: service_path, method, body, params: params ?? {}, headers: headers ?? {} };
}

/** The system's headers with the payload's over them, by lower-case name, or which header is not a string. */
function mergeHeaders(
  systemHeaders: Record<string, string>,
  payloadHeaders: Record<string, unknown>,
): Map<string, [string, string]> | string {
  // Names are case-insensitive: a payload header replaces the system's header of the same name.
  const merged = new Map<string, [string, string]>();
  for (const [key, value] of [...Object.entries(systemHeaders), ...Object.entries(payloadHeaders)]) {
    if (value === undefined || value === null) continue;
    if (!["string", "number", "boolean"].includes(typeof value)) return `header ${key} must be a string`;
    merged.set(key.toLowerCase(), [key, String(value)]);
  }
  return merged;
}

/** The body as sent: text and bytes as they are, anything else as JSON (with its content type unless set). */
function encodeBody(
  body: unknown,
  headers: Map<string, [string, string]>,
): PreparedRequest["body"] | { problem: string } {
  if (typeof body === "string" || isUint8Array(body)) return body;
  if (body === undefined || body === null) return undefined;
  let encoded: string;
  try {
    encoded = JSON.stringify(body);
  } catch (error) {
    return { problem: `the payload body cannot be sent as JSON: ${(error as Error).message}` };
  }
  if (!headers.has("content-type")) headers.set("content-type", ["content-type", "application/json"]);
  return encoded;
}

/** The base_url's path prefix, the service path and the params as a query string, a list as repeated keys. */
function requestPath(prefix: string, servicePath: string, params: Record<string, unknown>): string {
  const url = new URL(`http://host${prefix}/${servicePath.replace(/^\/+/, "")}`);
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      url.searchParams.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
  return `${url.pathname}${url.search}`;
}

// Bytes are a body, not an object of fields.
function isFields(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !isUint8Array(value);
}

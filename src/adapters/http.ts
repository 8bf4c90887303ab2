import { STATUS_CODES } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { XMLParser } from "fast-xml-parser";
import { type Dispatcher, Pool } from "undici";
import type { SystemConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import type { Adapter, AdapterCallContext, AdapterResponse } from "./adapter.js";

export interface HttpAdapterOptions {
  /** Sends the requests instead of a pool of its own (a MockAgent in tests); the caller closes it. */
  dispatcher?: Dispatcher;
  /** The jitter of the retry backoff, in [0, 1). */
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** One HTTP request as the payload of a service call describes it (SPEC §8). */
interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** The answer of one attempt, and whether another attempt may change it. */
interface Attempt {
  response: AdapterResponse;
  retryable: boolean;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const ERROR_FIELDS = ["message", "error", "errorMessage", "detail", "title"];
const RAW_PAYLOAD_BYTES = 64 * 1024;
const MESSAGE_CHARS = 1024;
const BACKOFF_CAP_MS = 30_000;
const ABORTED = Symbol("aborted");
const TIMED_OUT = Symbol("timed out");

// Values stay strings: account numbers keep their leading zeros and money never becomes a float.
const xmlParser = new XMLParser({ ignoreAttributes: false, parseTagValue: false });

/** The `http` adapter of one system: a keep-alive pool for its base_url, retries for idempotent calls. */
export function createHttpAdapter(
  system: { name: string; config: SystemConfig },
  options: HttpAdapterOptions = {},
): Adapter & { close(): Promise<void> } {
  const { name, config } = system;
  const base = parseBaseUrl(name, config.base_url);
  const timeoutMs = config.timeout_ms ?? 10_000;
  const maxRetries = config.retries?.max ?? 0;
  const backoffMs = config.retries?.backoff_ms ?? 100;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }).catch(() => {}));
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? new Pool(base.origin);
  let closing: Promise<void> | undefined;

  async function attempt(request: PreparedRequest, signal: AbortSignal): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
    const onAbort = () => controller.abort(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await dispatcher.request({
        origin: base.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      });
      const text = await response.body.text();
      return {
        response: answer(response.statusCode, response.headers["content-type"], text),
        retryable: RETRY_STATUSES.has(response.statusCode),
      };
    } catch (error) {
      if (controller.signal.reason === ABORTED) return { response: failure("aborted"), retryable: false };
      const where = `${name}: ${request.method} ${request.path.split("?")[0]}`;
      if (controller.signal.reason === TIMED_OUT)
        return { response: failure(`${where}: no complete answer within ${timeoutMs} ms`), retryable: true };
      const code = errorCode(error);
      // A request undici refuses to send, or a closed adapter, fails the same way every time.
      const retryable = code !== "UND_ERR_INVALID_ARG" && code !== "UND_ERR_CLOSED";
      return { response: failure(`${where}: ${describeTransportError(code, error)}`), retryable };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  return {
    async execute(request, context: AdapterCallContext): Promise<AdapterResponse> {
      const prepared = prepareRequest(request.payload, base.prefix, config.headers ?? {});
      if (typeof prepared === "string") return failure(`${name}: ${prepared}`);
      if (context.signal.aborted) return failure("aborted");
      const attempts = mayRepeat(prepared) ? 1 + maxRetries : 1;
      let made = 0;
      let outcome: Attempt;
      for (;;) {
        made += 1;
        outcome = await attempt(prepared, context.signal);
        if (!outcome.retryable || made >= attempts) break;
        // Full jitter: a random wait up to the exponential ceiling, so that callers do not retry in step.
        await sleep(
          Math.floor(random() * Math.min(BACKOFF_CAP_MS, backoffMs * 2 ** (made - 1))),
          context.signal,
        );
        if (context.signal.aborted) return failure("aborted");
      }
      if (made > 1) outcome.response.messages.push(`${name}: ${made} attempts were made`);
      return outcome.response;
    },
    close: () => {
      closing ??= ownsDispatcher ? dispatcher.close() : Promise.resolve();
      return closing;
    },
  };
}

function parseBaseUrl(system: string, baseUrl: string | undefined): { origin: string; prefix: string } {
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

/** GET/HEAD/PUT/DELETE, or a request that carries an idempotency key, may be sent again. */
function mayRepeat(request: PreparedRequest): boolean {
  if (IDEMPOTENT_METHODS.has(request.method)) return true;
  return Object.keys(request.headers).some((header) => /^(x-)?idempotency-key$/i.test(header));
}

/** The request a payload describes, or what is wrong with the payload. */
function prepareRequest(
  payload: unknown,
  prefix: string,
  systemHeaders: Record<string, string>,
): PreparedRequest | string {
  if (!isRecord(payload)) return "the http adapter needs a payload object with service_path and method";
  const { service_path, method, body, params, headers } = payload;
  if (typeof service_path !== "string" || service_path === "")
    return "the payload has no service_path (a path such as /core/v1/persons)";
  if (typeof method !== "string" || !/^[A-Za-z]+$/.test(method))
    return "the payload has no method (GET, POST, PUT, PATCH, DELETE or HEAD)";
  if (params !== undefined && params !== null && !isRecord(params)) return "payload params must be an object";
  if (headers !== undefined && headers !== null && !isRecord(headers))
    return "payload headers must be an object";

  // Names are case-insensitive: a payload header replaces the system's header of the same name.
  const merged = new Map<string, [string, string]>();
  for (const [key, value] of [...Object.entries(systemHeaders), ...Object.entries(headers ?? {})]) {
    if (value === undefined || value === null) continue;
    if (!["string", "number", "boolean"].includes(typeof value)) return `header ${key} must be a string`;
    merged.set(key.toLowerCase(), [key, String(value)]);
  }
  let encoded: string | Uint8Array | undefined;
  if (typeof body === "string" || body instanceof Uint8Array) encoded = body;
  else if (body !== undefined && body !== null) {
    try {
      encoded = JSON.stringify(body);
    } catch (error) {
      return `the payload body cannot be sent as JSON: ${(error as Error).message}`;
    }
    if (!merged.has("content-type")) merged.set("content-type", ["content-type", "application/json"]);
  }

  const url = new URL(`http://host${prefix}/${service_path.replace(/^\/+/, "")}`);
  for (const [key, value] of Object.entries(params ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      url.searchParams.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
  return {
    method: method.toUpperCase(),
    path: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(merged.values()),
    body: encoded,
  };
}

/** The adapter response for an HTTP answer: the body parsed by its content type, errors as messages. */
function answer(status: number, contentType: string | string[] | undefined, text: string): AdapterResponse {
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
  if (!isRecord(payload)) return [];
  const texts: string[] = [];
  for (const field of ERROR_FIELDS) {
    const value = Object.hasOwn(payload, field) ? payload[field] : undefined;
    const text = isRecord(value) && typeof value.message === "string" ? value.message : value;
    if (typeof text === "string" && text.trim() !== "" && !texts.includes(text))
      texts.push(text.slice(0, MESSAGE_CHARS));
  }
  return texts;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

function describeTransportError(code: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  const causes: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset",
    EPIPE: "connection closed while sending",
    UND_ERR_SOCKET: "connection closed by the other side",
    ENOTFOUND: "host not found",
    EAI_AGAIN: "host lookup failed",
    ETIMEDOUT: "connection timed out",
    UND_ERR_CONNECT_TIMEOUT: "connection timed out",
    UND_ERR_HEADERS_TIMEOUT: "no response headers in time",
    UND_ERR_BODY_TIMEOUT: "the response body stalled",
    UND_ERR_CLOSED: "the adapter is closed",
    UND_ERR_INVALID_ARG: "the request cannot be sent",
  };
  const tls = /^(ERR_TLS_|ERR_SSL_|CERT_)|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)/.test(code);
  const cause = causes[code] ?? (tls ? "TLS failure" : "request failed");
  return `${cause} (${detail || code})`;
}

function failure(message: string): AdapterResponse {
  return { success: false, payload: null, messages: [message] };
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

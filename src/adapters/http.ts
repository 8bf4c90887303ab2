import { setTimeout as delay } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { SystemConfig } from "../definition/types.js";
import type { Adapter, AdapterCallContext, AdapterResponse } from "./adapter.js";
import { type ExchangeOutcome, type Stop, sendRequest, stopped } from "./http-exchange.js";
import { type PreparedRequest, parseBaseUrl, prepareRequest } from "./http-request.js";
import { MAX_RESPONSE_BYTES, parseHttpResponse } from "./http-response.js";
import { backoffDelay, isRetryableStatus, isRetryableTransportError, mayRepeat } from "./http-retry.js";
import { Pool } from "./undici.js";

export interface HttpAdapterOptions {
  /** Sends the requests instead of a pool of its own (a MockAgent in tests); the caller closes it and sets its response size limit. */
  dispatcher?: Dispatcher;
  /** The jitter of the retry backoff, in [0, 1). */
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** A longer response body fails the call unread (default `MAX_RESPONSE_BYTES`, 10 MiB). */
  maxResponseBytes?: number;
}

/** The answer of one attempt, and whether another attempt may change it. */
interface Attempt {
  response: AdapterResponse;
  retryable: boolean;
}

/** What an attempt's answer says of the call: the system, the limits it was sent with. */
interface AttemptLimits {
  name: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** The `http` adapter of one system: a keep-alive pool for its base_url, retries for idempotent calls. */
export function createHttpAdapter(
  system: { name: string; config: SystemConfig },
  options: HttpAdapterOptions = {},
): Adapter & { close(): Promise<void> } {
  const { name, config } = system;
  const base = parseBaseUrl(name, config.base_url);
  const limits: AttemptLimits = {
    name,
    timeoutMs: config.timeout_ms ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
  };
  const maxRetries = config.retries?.max ?? 0;
  const backoffMs = config.retries?.backoff_ms ?? 100;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }).catch(() => {}));
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ?? new Pool(base.origin, { maxResponseSize: limits.maxResponseBytes });
  let closing: Promise<void> | undefined;

  async function attempt(request: PreparedRequest, stop: Stop): Promise<Attempt> {
    const { timeoutMs } = limits;
    const outcome = await sendRequest(dispatcher, request, { origin: base.origin, timeoutMs, stop });
    return judgeOutcome(outcome, request, limits);
  }

  /** Sends `request` until an attempt may not be repeated, the attempts run out, or the run stops. */
  async function attemptAll(request: PreparedRequest, stop: Stop): Promise<AdapterResponse> {
    const attempts = mayRepeat(request) ? 1 + maxRetries : 1;
    for (let made = 1; ; made++) {
      const outcome = await attempt(request, stop);
      if (!outcome.retryable || made >= attempts) {
        if (made > 1) outcome.response.messages.push(`${name}: ${made} attempts were made`);
        return outcome.response;
      }
      if (!(await waitToRetry(made, stop))) return failure("aborted");
    }
  }

  /** Waits out the backoff after attempt `made`; false when the run stops, or its deadline comes, first. */
  async function waitToRetry(made: number, stop: Stop): Promise<boolean> {
    const wait = backoffDelay(made, backoffMs, random);
    if (stop.deadline !== undefined && performance.now() + wait >= stop.deadline) {
      await sleepUntil(stop.deadline, sleep);
      return false;
    }
    await sleep(wait, stop.signal);
    return !stopped(stop);
  }

  return {
    async execute(request, context: AdapterCallContext): Promise<AdapterResponse> {
      const prepared = prepareRequest(request.payload, base.prefix, config.headers ?? {});
      if (typeof prepared === "string") return failure(`${name}: ${prepared}`);
      const stop = stopOf(context);
      if (stopped(stop)) return failure("aborted");
      return attemptAll(prepared, stop);
    },
    close: () => {
      closing ??= ownsDispatcher ? dispatcher.close() : Promise.resolve();
      return closing;
    },
  };
}

/** The adapter response of one attempt's outcome, and whether another attempt may change it. */
function judgeOutcome(outcome: ExchangeOutcome, request: PreparedRequest, limits: AttemptLimits): Attempt {
  const where = () => `${limits.name}: ${request.method} ${request.path.split("?")[0]}`;
  switch (outcome.kind) {
    case "answer":
      return {
        response: parseHttpResponse(outcome.status, outcome.contentType, outcome.text),
        retryable: isRetryableStatus(outcome.status),
      };
    // The same request would get the same body again: no retry.
    case "too large":
      return {
        response: {
          success: false,
          status: outcome.status,
          payload: null,
          messages: [
            `${where()}: the response body is larger than the limit of ${limits.maxResponseBytes} bytes`,
          ],
        },
        retryable: false,
      };
    case "aborted":
      return { response: failure("aborted"), retryable: false };
    case "timed out":
      return {
        response: failure(
          `${where()}: no complete answer within ${limits.timeoutMs} ms; the outcome there is unknown`,
        ),
        retryable: true,
      };
    case "failed": {
      const code = errorCode(outcome.error);
      return {
        response: failure(`${where()}: ${describeTransportError(code, outcome.error)}`),
        retryable: isRetryableTransportError(code),
      };
    }
  }
}

/**
 * Waits until the deadline has passed by performance.now(), however early a timer fires. Stopping before
 * it would let a failure pass for the call's own (the engine counts one at or past it as the run's time-out).
 */
async function sleepUntil(deadline: number, sleep: NonNullable<HttpAdapterOptions["sleep"]>): Promise<void> {
  for (let left = deadline - performance.now(); left > 0; left = deadline - performance.now())
    await sleep(left, undefined);
}

/** How a call learns that its run's time limit has passed: the deadline when the engine gives one, else the signal. */
function stopOf(context: AdapterCallContext): Stop {
  return context.deadline !== undefined ? { deadline: context.deadline } : { signal: context.signal };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

const transportCauses: Readonly<Record<string, string>> = {
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

function describeTransportError(code: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  const tls = /^(ERR_TLS_|ERR_SSL_|CERT_)|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)/.test(code);
  const cause = transportCauses[code] ?? (tls ? "TLS failure" : "request failed");
  return `${cause} (${detail || code})`;
}

function failure(message: string): AdapterResponse {
  return { success: false, payload: null, messages: [message] };
}

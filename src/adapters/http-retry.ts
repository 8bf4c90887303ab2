/**
 * The http adapter's retry policy (docs/behaviour.md#systems-and-adapters): which requests may be sent again, after which answers,
 * and how long to wait in between.
 */
import type { PreparedRequest } from "./http-request.js";

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const BACKOFF_CAP_MS = 30_000;

/** GET/HEAD/PUT/DELETE, or a request that carries an idempotency key, may be sent again. */
export function mayRepeat(request: PreparedRequest): boolean {
  if (IDEMPOTENT_METHODS.has(request.method)) return true;
  return Object.keys(request.headers).some((header) => /^(x-)?idempotency-key$/i.test(header));
}

/** Whether another attempt may get a different answer than this status: 429, 502, 503, 504. */
export function isRetryableStatus(status: number): boolean {
  return RETRY_STATUSES.has(status);
}

/** Whether a transport error, by its code, may pass on another attempt. */
export function isRetryableTransportError(code: string): boolean {
  // A request undici refuses to send, or a closed adapter, fails the same way every time.
  return code !== "UND_ERR_INVALID_ARG" && code !== "UND_ERR_CLOSED";
}

/**
 * The wait before the next attempt, after `made` attempts. Full jitter: a random wait up to the
 * exponential ceiling (capped at 30 s), so that callers do not retry in step.
 */
export function backoffDelay(made: number, backoffMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, backoffMs * 2 ** (made - 1)));
}

import type { Dispatcher } from "undici";
import type { PreparedRequest } from "./http-request.js";
import { errors, request } from "./undici.js";

/** How one request ended: an answer (its body as text), a body over the limit, a stop, or a transport error. */
export type ExchangeOutcome =
  | { kind: "answer"; status: number; contentType: string | string[] | undefined; text: string }
  | { kind: "too large"; status: number }
  | { kind: "aborted" }
  | { kind: "timed out" }
  | { kind: "failed"; error: Error };

export interface SendRequestOptions {
  origin: string;
  /** The whole exchange, from sending to the body's last byte. */
  timeoutMs: number;
  stop: Stop;
}

/**
 * What ends an exchange as aborted: its signal, or its deadline (a `performance.now()` time) once it
 * passes. The engine gives a call its run's deadline, so the run's AbortSignal is never made for it.
 */
export interface Stop {
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
}

/** Whether `stop` has ended what it guards. */
export function stopped(stop: Stop): boolean {
  return stop.signal?.aborted === true || (stop.deadline !== undefined && performance.now() >= stop.deadline);
}

/**
 * Sends `request` through `dispatcher` with undici's `request()` and reads the answer's body as text; a
 * body over the dispatcher's `maxResponseSize` ends as "too large". A stop (time-out, abort) ends the
 * exchange at once, also while the request waits for a connection: undici cancels a queued request only
 * once it gets one. Never rejects.
 */
export function sendRequest(
  dispatcher: Dispatcher,
  prepared: PreparedRequest,
  options: SendRequestOptions,
): Promise<ExchangeOutcome> {
  if (stopped(options.stop)) return Promise.resolve({ kind: "aborted" });
  const cancel = new AbortController();
  const limit = watchLimits(options, cancel);
  return Promise.race([receive(dispatcher, prepared, options.origin, cancel.signal), limit.reached]).finally(
    limit.clear,
  );
}

/** Reads the answer of one request; an error (a stop's included) is a failure, unless it is the size limit's. */
async function receive(
  dispatcher: Dispatcher,
  { method, path, headers, body }: PreparedRequest,
  origin: string,
  signal: AbortSignal,
): Promise<ExchangeOutcome> {
  let status = 0;
  try {
    const response = await request.call(dispatcher, {
      origin,
      path,
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      signal,
    });
    status = response.statusCode;
    const text = await response.body.text();
    return { kind: "answer", status, contentType: response.headers["content-type"], text };
  } catch (error) {
    if (error instanceof errors.ResponseExceededMaxSizeError) return { kind: "too large", status };
    return { kind: "failed", error: error as Error };
  }
}

/**
 * The exchange's time-out and its stop, as one outcome that settles when either is reached; reaching it
 * cancels the request (closing its connection). `clear` stops watching.
 */
function watchLimits(
  { timeoutMs, stop }: SendRequestOptions,
  cancel: AbortController,
): { reached: Promise<ExchangeOutcome>; clear(): void } {
  const { signal } = stop;
  const deadline = stop.deadline ?? Number.POSITIVE_INFINITY;
  let reach!: (outcome: ExchangeOutcome) => void;
  const reached = new Promise<ExchangeOutcome>((resolve) => {
    reach = (outcome) => {
      clear();
      resolve(outcome);
      cancel.abort(new Error(outcome.kind));
    };
  });
  const onAbort = () => reach({ kind: "aborted" });
  // One timer serves both limits: the exchange's own, and the deadline when that comes first. A timer may
  // fire a little early by performance.now(): the deadline's stop then waits for the rest, so that it
  // never ends an exchange before the deadline (the engine counts a failure past it as the run's time-out).
  const timedOutAt = performance.now() + timeoutMs;
  const onTimer = () => {
    const now = performance.now();
    if (deadline <= timedOutAt && now < deadline) timer = setTimeout(onTimer, deadline - now);
    else reach(deadline <= timedOutAt ? { kind: "aborted" } : { kind: "timed out" });
  };
  let timer = setTimeout(onTimer, Math.min(timeoutMs, deadline - performance.now()));
  signal?.addEventListener("abort", onAbort, { once: true });
  function clear() {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  return { reached, clear };
}

import { type Dispatcher, errors } from "undici";
import type { PreparedRequest } from "./http-request.js";

/** How one request ended: an answer (its body as text), a body over the limit, a stop, or a transport error. */
export type Exchange =
  | { kind: "answer"; status: number; contentType: string | string[] | undefined; text: string }
  | { kind: "too large"; status: number }
  | { kind: "aborted" }
  | { kind: "timed out" }
  | { kind: "failed"; error: Error };

export interface SendRequestOptions {
  origin: string;
  /** The whole exchange, from sending to the body's last byte. */
  timeoutMs: number;
  /** A longer body ends the exchange unread, and its connection with it. */
  maxResponseBytes: number;
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

// Strips a byte order mark, as undici's body.text() does.
const utf8 = new TextDecoder();

/**
 * Sends `request` through `dispatcher` and collects the answer's body, at most `maxResponseBytes` of it.
 * A handler of undici's dispatch API, not `request()`: no body stream, no promise per chunk, and a stop
 * (time-out, abort, body over the limit) ends the exchange at once, also while it waits for a connection.
 * Never rejects.
 */
export function sendRequest(
  dispatcher: Dispatcher,
  request: PreparedRequest,
  options: SendRequestOptions,
): Promise<Exchange> {
  const { timeoutMs, maxResponseBytes, stop: limit } = options;
  const { signal } = limit;
  const deadline = limit.deadline ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve) => {
    if (stopped(limit)) return resolve({ kind: "aborted" });
    // As request() does: a CONNECT would turn the connection into a tunnel, not answer.
    if (request.method === "CONNECT")
      return resolve({ kind: "failed", error: new errors.InvalidArgumentError("invalid method") });
    let controller: Dispatcher.DispatchController | undefined;
    let ended: Exchange | undefined;
    let status = 0;
    let contentType: string | string[] | undefined;
    const chunks: Buffer[] = [];
    let size = 0;

    const end = (exchange: Exchange) => {
      if (ended) return;
      ended = exchange;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(exchange);
    };
    // Ends the exchange and undici's request with it (closing its connection); a request still waiting
    // for a connection is stopped as soon as it gets one.
    const stop = (exchange: Exchange) => {
      end(exchange);
      controller?.abort(new Error(exchange.kind));
    };
    const onAbort = () => stop({ kind: "aborted" });
    // One timer serves both limits: the exchange's own, and the deadline when that comes first. A timer may
    // fire a little early by performance.now(): the deadline's stop then waits for the rest, so that it
    // never ends an exchange before the deadline (the engine counts a failure past it as the run's time-out).
    const timedOutAt = performance.now() + timeoutMs;
    const onTimer = () => {
      const now = performance.now();
      if (deadline <= timedOutAt && now < deadline) timer = setTimeout(onTimer, deadline - now);
      else stop(deadline <= timedOutAt ? { kind: "aborted" } : { kind: "timed out" });
    };
    let timer = setTimeout(onTimer, Math.min(timeoutMs, deadline - performance.now()));
    signal?.addEventListener("abort", onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (ended) started.abort(new Error(ended.kind));
      },
      onResponseStart(_controller, statusCode, headers) {
        // 1xx answers are interim: the final one follows.
        if (statusCode < 200) return;
        status = statusCode;
        contentType = headers["content-type"];
      },
      onResponseData(_controller, chunk) {
        if (ended) return;
        size += chunk.length;
        if (size > maxResponseBytes) stop({ kind: "too large", status });
        else chunks.push(chunk);
      },
      onResponseEnd() {
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
        end({ kind: "answer", status, contentType, text: utf8.decode(body) });
      },
      onResponseError(_controller, error) {
        end({ kind: "failed", error });
      },
    };
    const { method, path, headers, body } = request;
    try {
      dispatcher.dispatch(
        { origin: options.origin, method: method as Dispatcher.HttpMethod, path, headers, body },
        handler,
      );
    } catch (error) {
      end({ kind: "failed", error: error as Error });
    }
  });
}

import type { RunInput } from "../engine/types.js";
import type { HistoryStore } from "../history/store.js";
import type { Runner } from "../runner/runner.js";
import type { Sealer } from "../state/seal.js";
import type { IdempotencyStore } from "./idempotency.js";
import type { Limiter } from "./limiter.js";
import type { LogError, ServeResponse } from "./problem.js";
import type { EventSink, RunEvents } from "./run-events.js";
import type { ServedSet } from "./served-set.js";

/** A request as the server read it: the body is whole and within the limit. */
export interface ServeRequest {
  method: string;
  /** Path and query, as on the request line. */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Uint8Array;
  /** The client's address: under `auth: none`, what tells one caller's Idempotency-Keys from another's. */
  remoteAddress?: string | undefined;
}

/** A response, with what the server's log line tells about it. */
export interface HandledResponse extends ServeResponse {
  runId?: string | undefined;
  /** The request path as the log may show it: masked like the run's record. */
  logPath: string;
  /**
   * The answer is not the run's own (its worker ended under it, or could not run it): like a 502, 503 or
   * 504, it is not kept for an Idempotency-Key, so that a retry runs again.
   */
  retryable?: boolean | undefined;
  /** The answer is an earlier one again (an Idempotency-Key's replay): the log line says so. */
  replayed?: boolean | undefined;
  /** A stream that goes on after the head (server-sent events): opened with the response's ends, returns its close. */
  stream?: ((sink: EventSink) => () => void) | undefined;
}

/** Where serve's runs go: its runner (worker threads, or serve's own thread), and what a worker opens. */
export interface ServeRuns {
  runner: Runner;
  /** Which load of the project the set is (counted by `--watch`): a worker opens it anew when it changes. */
  version: number;
  /** The embedded mock core serve's thread uses now (it moves when serve takes over another process's). */
  mockcoreUrl(): string | undefined;
}

export interface ServeContext {
  /** The host serve listens on: a request naming it in `Host` passes the Host check. */
  boundHost: string;
  /** The integrations in use now (`--watch` swaps them), and what runs them. */
  current(): { set: ServedSet; runs: ServeRuns };
  history: HistoryStore;
  idempotency: IdempotencyStore;
  limiter: Limiter;
  /** The scope of a request's credential (its Idempotency-Keys are its own), or undefined when it may not come in. */
  authenticate(authorization: string | undefined): string | undefined;
  /** Gets each error serve did not expect before its 500 (default: its stack on stderr, the set's secrets masked). */
  logError?: LogError;
  /** Every record written, for the run history page's live list. */
  events: RunEvents;
  /** A run's request, sealed to keep with its record; absent under `history.keep_requests: false`. */
  keepRequest?: ((runId: string, input: RunInput) => string) | undefined;
  /** The state key's sealer: kept requests open with it. */
  sealer: Sealer;
}

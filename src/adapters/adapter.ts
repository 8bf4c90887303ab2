/** The prepared request an adapter executes (docs/behaviour.md#systems-and-adapters): the service name and the payload the mappings built. */
export interface AdapterRequest {
  service_name: string;
  payload: unknown;
}

/** What an adapter answers; `success: false` fails the service call. */
export interface AdapterResponse {
  success: boolean;
  /** The adapter's status code where it has one (the HTTP status for `http`). */
  status?: number | undefined;
  payload: unknown;
  messages: string[];
}

/** Which call an execution is, for adapters that answer by call (mocks, replay) and for time-outs. */
export interface AdapterCallContext {
  system: string;
  formulaVariable: string;
  sridx: number | null;
  /** Aborted once the run is past its time limit. */
  signal: AbortSignal;
  /**
   * When the run's time limit ends the call, as a `performance.now()` time: the moment `signal` aborts. The
   * engine gives it; an adapter that only needs the limit can wait until it without asking for the signal,
   * which is then never made (an AbortSignal costs more than a short call).
   */
  deadline?: number | undefined;
}

export interface Adapter {
  execute(request: AdapterRequest, context: AdapterCallContext): Promise<AdapterResponse>;
}

/** Finds the adapter of a system; the engine asks once per service call. */
export type AdapterResolver = (system: string) => Adapter;

import { errorMessage, isBassError } from "../errors.js";
import { addItem, currentOutput, type FailureKind, type RunState, readCellValues } from "./run-state.js";
import type { OutputData } from "./types.js";

/** The default failure output of docs/reference.md#how-a-run-uses-these-keys, by why the run failed. */
const defaults: Record<FailureKind, { status: number; code: string; message: string }> = {
  validation: { status: 422, code: "validation_failed", message: "the request did not pass validation" },
  service: {
    status: 502,
    code: "service_request_failed",
    message: "a connected system did not answer successfully",
  },
  timeout: { status: 504, code: "timeout", message: "the run ran out of time" },
  error: { status: 500, code: "internal_error", message: "the integration failed" },
};

/**
 * Puts the run in failure. On the way in (not through `end()`), the output becomes the default failure output, which
 * on_failure_hook may then overwrite.
 */
export function enterFailure(state: RunState, kind: FailureKind, details: readonly string[]): void {
  if (state.failure) return;
  state.failure = kind;
  if (state.ended) return;
  const output = currentOutput(state);
  const fallback = defaultFailureOutput(kind, details, state.id);
  const payload = state.integration.realm.adopt(fallback.payload);
  // The output is the cells' object: a setter of theirs runs within a cell's time limit, and one that
  // fails leaves the run a new output.
  try {
    readCellValues(state, "output", () => {
      output.status = fallback.status;
      output.payload = payload;
    });
  } catch {
    state.namespace.output = state.integration.realm.adopt({ ...fallback, payload });
  }
  state.defaultPayload = payload;
}

/** The default failure output for a failure: `{ error: { code, message, run_id, details } }`. */
export function defaultFailureOutput(
  kind: FailureKind,
  details: readonly string[],
  runId: string,
): OutputData {
  const { status, code, message } = defaults[kind];
  return { status, headers: {}, payload: { error: { code, message, run_id: runId, details: [...details] } } };
}

/** Records a thrown error as a FAILURE item and says which kind of failure it is. */
export function recordError(state: RunState, error: unknown): FailureKind {
  const kind: FailureKind = isBassError(error) && error.code === "CELL_TIMEOUT" ? "timeout" : "error";
  const message = errorMessage(error);
  const cell = isBassError(error) ? error.cell : undefined;
  const line = isBassError(error) ? error.position?.line : undefined;
  const file = line && isBassError(error) ? error.position?.file : undefined;
  const code = isBassError(error) ? error.code.toLowerCase() : "cell_error";
  addItem(state, {
    kind: "FAILURE",
    error: { code, message, ...(cell ? { cell } : {}), ...(file ? { file } : {}), ...(line ? { line } : {}) },
  });
  return kind;
}

/** Records a thrown error and puts the run in failure (docs/reference.md#how-a-run-uses-these-keys: a cell error outside a service call). */
export function failOnError(state: RunState, error: unknown): void {
  const kind = recordError(state, error);
  enterFailure(state, kind, [errorMessage(error)]);
}

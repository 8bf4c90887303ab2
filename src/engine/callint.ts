import { BassError } from "../errors.js";
import { addItem, type RunState } from "./run-state.js";
import { snapshot } from "./snapshot.js";
import type { OutputData, RunInput, RunStatus } from "./types.js";

/** How deep a chain of callint may go: the run called from outside is depth 0. */
export const maxCallintDepth = 10;

/** The run that calls another with callint, as the child needs it. */
export interface CallintParent {
  runId: string;
  /** The child's depth in the chain. */
  depth: number;
  /** The parent's namespace, for a sync child's `parentint`: made only when a child runs sync. */
  namespace(): unknown;
  /** What is left of the parent's run time, in ms: the child's own time counts against it. */
  remainingMs: number;
  /** Values the parent masks (and its secrets): masked by value in the child's record too. */
  masked: string[];
  /** The worker pool's task the parent is part of: a child run in the parent's worker is part of it too. */
  poolTask?: number | undefined;
}

export interface CallintRequest {
  integration: string;
  input: RunInput;
  /** callint's `mode`: true for "async", false for "sync", undefined for the child's own `run_async`. */
  runAsync: boolean | undefined;
  parent: CallintParent;
}

/** What a child run gives its parent: its output, or the 202 of an async one, and its record's summary. */
export interface CallintAnswer {
  runId: string;
  integration: string;
  status: RunStatus;
  durationMs: number;
  output: OutputData;
  /** What the child masked: the parent masks it too, wherever the child's answer carries it. */
  masked: readonly string[];
}

/** An async child's answer: its 202, at its start. */
export function startedAnswer(runId: string, integration: string, accepted: OutputData): CallintAnswer {
  return { runId, integration, status: "running", durationMs: 0, output: accepted, masked: [] };
}

/** Runs another integration of the project for callint: where runs happen, with their systems and history. */
export type CallintRunner = (request: CallintRequest) => Promise<CallintAnswer>;

interface CallintOptions {
  extended?: boolean;
  mode?: "sync" | "async";
}

/**
 * `callint(name, payload, { extended, mode })`: runs another integration as a run of its own and answers
 * its output `{ status, headers, payload }`; the parent gets a CALLINT item. With `extended`, `payload`
 * is an envelope (`payload, method, path, params, headers, fullpath`); else it is the body of a POST.
 */
export async function callIntegration(
  state: RunState,
  namespaceData: () => unknown,
  args: CallintArguments,
): Promise<OutputData> {
  const runner = state.callint;
  if (!runner) throw new Error("callint cannot run another integration here");
  const started = performance.now();
  return callintAnswered(state, await runner(callintRequest(state, namespaceData, args)), started);
}

export type CallintArguments = [name: unknown, payload: unknown, options?: CallintOptions];

/** The child run callint asks for, its arguments checked; past the depth limit, `callint_depth`. */
export function callintRequest(
  state: RunState,
  namespaceData: () => unknown,
  [name, payload, options = {}]: CallintArguments,
): CallintRequest {
  const depth = state.depth + 1;
  if (depth > maxCallintDepth)
    throw new BassError(
      "CALLINT_DEPTH",
      `callint: a chain of integrations may be ${maxCallintDepth} deep at most, and ${state.integration.name} would make it deeper`,
    );
  if (options.mode !== undefined && options.mode !== "sync" && options.mode !== "async")
    throw new TypeError(`callint: mode is "sync" or "async", not ${JSON.stringify(options.mode)}`);
  return {
    integration: String(name),
    input: options.extended ? envelopeOf(payload) : { payload: snapshot(payload), method: "POST" },
    runAsync: options.mode === undefined ? undefined : options.mode === "async",
    parent: {
      runId: state.id,
      depth,
      namespace: () => snapshot(namespaceData()),
      remainingMs: state.runDeadline - performance.now(),
      masked: [...state.maskedValues, ...state.secrets],
      poolTask: state.poolTask,
    },
  };
}

/** What the calling run makes of a child's answer: its masks, a CALLINT item, the child's output. */
export function callintAnswered(state: RunState, answer: CallintAnswer, started: number): OutputData {
  for (const value of answer.masked) state.maskedValues.add(value);
  addItem(state, {
    kind: "CALLINT",
    run_id: answer.runId,
    integration: answer.integration,
    status: answer.status,
    duration_ms: Math.round(performance.now() - started),
  });
  return answer.output;
}

/** The request an `extended` callint gives: an envelope's keys, each as given. */
function envelopeOf(value: unknown): RunInput {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new TypeError(
      "callint: with extended, the payload is an envelope: { payload, method, path, params, headers }",
    );
  const { payload, method, path, params, headers, fullpath } = snapshot(value) as Record<string, never>;
  return { payload: payload ?? {}, method, path, params, headers, fullpath };
}

import type { AdapterCallContext, AdapterResolver, AdapterResponse } from "../adapters/adapter.js";
import type { ServiceRequestHook } from "../definition/types.js";
import type { CompiledCell } from "./cell.js";
import type { CompiledServiceRequest } from "./compile.js";
import { type Deadlines, timedOut } from "./deadlines.js";
import { enterFailure, recordError } from "./failure.js";
import { applyFieldMappings } from "./mappings.js";
import { applyMasks } from "./masks.js";
import {
  addItem,
  callCell,
  type FailureKind,
  RunEnded,
  type RunState,
  reached,
  readCellValues,
  runSignal,
  took,
  withBindings,
} from "./run-state.js";
import { snapshot } from "./snapshot.js";
import type { Item } from "./types.js";
import { itemsOf, runValidationRules } from "./validation.js";

/** One service call's part of the formula variable (docs/reference.md#service_requests). */
export interface CallSlot {
  request: { service_name: string; payload: unknown };
  response: AdapterResponse | null;
}

/**
 * `calladapter(system, service_name, payload, { label })`: one call of a system from a cell, recorded as a
 * REQUEST item under `label` (else the service name); it answers `{ request, response }` as a formula
 * variable holds them. A failed call is an answer with `success: false`, never a thrown error.
 */
export async function callAdapterFromCell(state: RunState, args: CallAdapterArguments): Promise<CallSlot> {
  const adapters = state.adapters;
  if (!adapters) throw new Error("calladapter cannot call a system here");
  const { target, request } = calladapterRequest(args);
  const started = performance.now();
  const { response } = await execute(
    state,
    state.integration.realm.engine.deadlines,
    target,
    adapters,
    request,
    null,
  );
  return calladapterAnswered(state, target, request, response, started);
}

export type CallAdapterArguments = [
  system: unknown,
  serviceName: unknown,
  payload: unknown,
  options?: { label?: unknown },
];

/** The call calladapter asks for: the system, its label, and the request as the adapter gets it. */
export function calladapterRequest([system, serviceName, payload, options = {}]: CallAdapterArguments): {
  target: CallTarget;
  request: CallSlot["request"];
} {
  const target: CallTarget = {
    system: String(system),
    serviceName: String(serviceName),
    formulaVariable: String(options.label ?? serviceName),
  };
  return { target, request: { service_name: target.serviceName, payload: snapshot(payload) } };
}

/** What the calling run makes of calladapter's answer: a REQUEST item, and the formula variable's value. */
export function calladapterAnswered(
  state: RunState,
  target: CallTarget,
  request: CallSlot["request"],
  response: AdapterResponse,
  started: number,
): CallSlot {
  addRequestItem(state, target, null, started, request.payload, response);
  return { request, response };
}

/** Runs the service requests in `sequence` order while the run is not in failure (docs/reference.md#how-a-run-uses-these-keys step 5). */
export async function runServiceRequests(state: RunState, adapters: AdapterResolver): Promise<void> {
  for (const request of state.integration.serviceRequests) {
    if (state.failure) return;
    const failed = request.callForEach
      ? await runCallForEach(state, request, request.callForEach, adapters)
      : await runCallIf(state, request, { sritem: null, sridx: null }, undefined, adapters);
    if (failed) return enterFailure(state, failed.kind, failed.details);
  }
}

/** One call per item of `call_for_each`, into the formula variable's list; stops at a failure that aborts the run. */
async function runCallForEach(
  state: RunState,
  request: CompiledServiceRequest,
  callForEach: CompiledCell,
  adapters: AdapterResolver,
): Promise<CallFailure | undefined> {
  const fv = request.formulaVariable;
  const items = await itemsOf(state, callForEach, `${fv}.call_for_each`);
  took(state, callForEach, items.length > 0);
  const slots: (CallSlot | null)[] = state.integration.realm.adopt([]);
  state.namespace[fv] = slots;
  for (const [sridx, sritem] of items.entries()) {
    putSlot(state, slots, sridx, null);
    const failed = await runCallIf(state, request, { sritem, sridx }, slots, adapters);
    if (failed) return failed;
  }
  return undefined;
}

/** The call with `bindings`, unless its `call_if` says no; returns its failure when it aborts the run. */
async function runCallIf(
  state: RunState,
  request: CompiledServiceRequest,
  bindings: Call["bindings"],
  slots: Call["slots"],
  adapters: AdapterResolver,
): Promise<CallFailure | undefined> {
  const callIf = request.callIf;
  if (callIf && !took(state, callIf, await withBindings(state, bindings, () => callCell(state, callIf))))
    return undefined;
  reached(state, request.site);
  const failed = await runCall(createCall(state, request, bindings, slots), adapters);
  return failed && request.abortOnFailure ? failed : undefined;
}

interface CallFailure {
  kind: FailureKind;
  details: string[];
}

/** One service call in progress: what its steps share (plain data and module functions, no closures per call). */
interface Call {
  state: RunState;
  request: CompiledServiceRequest;
  bindings: { sritem: unknown; sridx: number | null };
  /** The formula variable's list with `call_for_each`, where this call's slot goes at `sridx`. */
  slots: (CallSlot | null)[] | undefined;
  slot: CallSlot | undefined;
  failure: CallFailure | undefined;
}

function createCall(
  state: RunState,
  request: CompiledServiceRequest,
  bindings: Call["bindings"],
  slots: Call["slots"],
): Call {
  return { state, request, bindings, slots, slot: undefined, failure: undefined };
}

/** One service call, through its eight hooks in order; says how it failed, or undefined when it succeeded. */
async function runCall(call: Call, adapters: AdapterResolver): Promise<CallFailure | undefined> {
  const { state, request, bindings } = call;
  const sridx = bindings.sridx;
  const started = performance.now();

  await guard(call, prepare);
  const slot = call.slot;
  if (call.failure || !slot) {
    addRequestItem(state, request, sridx, started, slot ? readSlotRequest(state, slot).payload : null, null);
    await runHook(call, "after_prepare_request_failure_hook");
    await runHook(call, "after_overall_failure_hook");
    return call.failure;
  }
  await runHook(call, "after_prepare_request_success_hook");
  if (!call.failure) await runHook(call, "before_execute_request_hook");
  if (call.failure) {
    addRequestItem(state, request, sridx, started, readSlotRequest(state, slot).payload, null);
    await runHook(call, "after_overall_failure_hook");
    return call.failure;
  }

  // Execute, then RESPONSE masks and rules. The hooks may have changed the request: read once, here.
  const prepared = readSlotRequest(state, slot);
  const { response, timedOut } = await execute(
    state,
    state.integration.realm.engine.deadlines,
    request,
    adapters,
    prepared,
    sridx,
  );
  putSlot(state, slot, "response", state.integration.realm.adopt(response));
  const item = addRequestItem(state, request, sridx, started, prepared.payload, response);
  if (item.response && request.responseMasks.length > 0) {
    const payload = item.response.payload;
    await guard(call, () => {
      const short = applyMasks(state, request.responseMasks, payload, bindings);
      if (short.length)
        failWith(
          call,
          "error",
          short.map((mask) => `mask ${mask.label} was applied fewer times than it must be`),
        );
    });
  }
  if (!response.success) failWith(call, timedOut ? "timeout" : "service", response.messages);
  if (response.success && !call.failure && request.responseRules.length > 0) {
    await guard(call, async () => {
      const rules = await runValidationRules(state, request.responseRules, bindings);
      if (rules.aborted) failWith(call, "validation", rules.messages);
    });
  }
  await runHook(
    call,
    call.failure ? "after_execute_request_failure_hook" : "after_execute_request_success_hook",
  );
  await runHook(call, call.failure ? "after_overall_failure_hook" : "after_overall_success_hook");
  return call.failure;
}

/** The prepare step: before_prepare_request_hook, field mappings, the formula variable's request, REQUEST rules. */
async function prepare(call: Call): Promise<void> {
  const { state, request, bindings } = call;
  await callHook(call, "before_prepare_request_hook");
  const payload = await withBindings(state, bindings, () => applyFieldMappings(state, request));
  const slot: CallSlot = state.integration.realm.adopt({
    request: { service_name: request.serviceName, payload },
    response: null,
  });
  call.slot = slot;
  if (call.slots) putSlot(state, call.slots, bindings.sridx as number, slot);
  else state.namespace[request.formulaVariable] = slot;
  if (request.requestRules.length === 0) return;
  const rules = await runValidationRules(state, request.requestRules, bindings);
  if (rules.aborted) failWith(call, "validation", rules.messages);
}

/**
 * Writes into an object cells can reach (a formula variable's list or slot), within a cell's time limit: a
 * hook may have put a setter there.
 */
function putSlot(state: RunState, target: object, key: string | number, value: unknown): void {
  readCellValues(state, "a formula variable", () => {
    (target as Record<string | number, unknown>)[key] = value;
  });
}

/** The request of a call as its hooks left it, as plain data: what the adapter gets and the record keeps. */
function readSlotRequest(state: RunState, slot: CallSlot): CallSlot["request"] {
  return readCellValues(
    state,
    "a formula variable's request",
    () => snapshot(slot.request) as CallSlot["request"],
  );
}

/** Runs a step of the call: an error fails the call (a FAILURE item), not the run; `end()` still ends the run. */
async function guard(call: Call, step: (call: Call) => unknown): Promise<void> {
  try {
    await step(call);
  } catch (error) {
    if (error instanceof RunEnded) throw error;
    const kind = recordError(call.state, error);
    failWith(call, kind, [(error as Error).message]);
  }
}

/** The call's first failure is the one it reports. */
function failWith(call: Call, kind: FailureKind, details: string[]): void {
  call.failure ??= { kind, details };
}

/** Runs one of the call's hooks as a step of its own (see guard). */
async function runHook(call: Call, name: ServiceRequestHook): Promise<void> {
  // Most of the eight hooks are absent: nothing is bound or guarded for them.
  if (call.request.hooks[name]) await guard(call, (current) => callHook(current, name));
}

/** Runs one of the call's hooks, if the definition has it, with sritem and sridx bound. */
function callHook(call: Call, name: ServiceRequestHook): unknown {
  const cell = call.request.hooks[name];
  return cell ? withBindings(call.state, call.bindings, () => callCell(call.state, cell)) : undefined;
}

/** Calls the adapter within the run's time limit; a throw or a time-out is `success: false`, never an uncaught error. */
/** What a call needs of its service request: its system, and the names it is recorded under. */
export type CallTarget = Pick<CompiledServiceRequest, "system" | "formulaVariable" | "serviceName">;

async function execute(
  state: RunState,
  deadlines: Deadlines,
  request: CallTarget,
  adapters: AdapterResolver,
  prepared: CallSlot["request"],
  sridx: number | null,
): Promise<{ response: AdapterResponse; timedOut: boolean }> {
  try {
    const adapter = adapters(request.system);
    const context = new CallContext(state, request, sridx);
    const answer = await deadlines.within(
      adapter.execute(snapshot(prepared) as CallSlot["request"], context),
      state.runDeadline,
      () => state.abort?.abort(),
    );
    // An adapter that stops at the run's deadline itself (the http adapter) may answer before the engine's
    // own timer fires: a failure at or past the deadline is the run's time-out all the same.
    const late =
      answer !== timedOut &&
      (answer as AdapterResponse | null)?.success !== true &&
      performance.now() >= state.runDeadline;
    if (answer === timedOut || late) {
      // The system may still act on the call (post the transfer): nothing says it did not.
      const message = `the outcome of ${request.formulaVariable} at ${request.system} is unknown: the run ran out of time while the call was under way`;
      return { response: { success: false, payload: null, messages: [message] }, timedOut: true };
    }
    return { response: normalizeResponse(answer), timedOut: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { response: { success: false, payload: null, messages: [message] }, timedOut: false };
  }
}

/** Where a call context keeps its run: a symbol, not enumerable, so a copy of the context leaves it out. */
const runOfCall = Symbol("run");

/**
 * What an adapter learns of the call; its signal is made only when the adapter asks for it. `signal` is an
 * own, enumerable property as an adapter would expect (`{ ...context }` keeps it), defined with one getter
 * shared by every context, which finds the run through the receiver, so a Proxy of the context or an
 * object made from it reads it too. A class, not an object literal with a getter: such a literal is a
 * dictionary-mode object, slower to make and keeping runs alive longer (bench/tricks.js, "CallContext class").
 */
export class CallContext implements AdapterCallContext {
  declare readonly signal: AbortSignal;
  readonly system: string;
  readonly formulaVariable: string;
  readonly sridx: number | null;
  readonly deadline: number;

  constructor(state: RunState, request: CallTarget, sridx: number | null) {
    this.system = request.system;
    this.formulaVariable = request.formulaVariable;
    this.sridx = sridx;
    this.deadline = state.runDeadline;
    // One at a time: defineProperties would need a descriptor map made per call.
    Object.defineProperty(this, "signal", signalProperty);
    Object.defineProperty(this, runOfCall, { value: state });
  }
}

const signalProperty: PropertyDescriptor = {
  enumerable: true,
  get(this: Record<typeof runOfCall, RunState>) {
    return runSignal(this[runOfCall]);
  },
};

/** An adapter's answer in the shape the engine relies on, whatever a module adapter returned. */
function normalizeResponse(response: AdapterResponse): AdapterResponse {
  if (response === null || typeof response !== "object") {
    return { success: false, payload: null, messages: ["the adapter answered no response object"] };
  }
  const messages = Array.isArray(response.messages) ? response.messages.map(String) : [];
  return {
    success: response.success === true,
    status: response.status,
    payload: response.payload ?? null,
    messages,
  };
}

function addRequestItem(
  state: RunState,
  request: CallTarget,
  sridx: number | null,
  started: number,
  payload: unknown,
  response: AdapterResponse | null,
): Extract<Item, { kind: "REQUEST" }> {
  return addItem(state, {
    kind: "REQUEST",
    label: request.formulaVariable,
    sridx,
    duration_ms: Math.round(performance.now() - started),
    request: { service_name: request.serviceName, payload: snapshot(payload) },
    response: response && {
      success: response.success,
      status: response.status,
      payload: snapshot(response.payload),
      messages: [...response.messages],
    },
  }) as Extract<Item, { kind: "REQUEST" }>;
}

/**
 * calladapter's call made for a run of another thread (a Python cell's, whose thread waits blocked): the
 * run's time left is all of the run it needs.
 */
export async function executeForRemoteRun(
  adapters: AdapterResolver,
  deadlines: Deadlines,
  target: CallTarget,
  request: CallSlot["request"],
  remainingMs: number,
): Promise<AdapterResponse> {
  const stand = { runDeadline: performance.now() + remainingMs, abort: undefined } as RunState;
  return (await execute(stand, deadlines, target, adapters, request, null)).response;
}

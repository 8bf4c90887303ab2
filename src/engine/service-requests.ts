import type { AdapterResolver, AdapterResponse } from "../adapters/adapter.js";
import type { CompiledServiceRequest } from "./compile.js";
import { timedOut, withinDeadline } from "./deadlines.js";
import { enterFailure, recordError } from "./failure.js";
import { applyFieldMappings } from "./mappings.js";
import { applyMasks } from "./masks.js";
import type { Item } from "./record.js";
import {
  addItem,
  callCell,
  type FailureKind,
  RunEnded,
  type RunState,
  runSignal,
  withBindings,
} from "./run-state.js";
import { snapshot } from "./snapshot.js";
import { runRules, toItems } from "./validation.js";

/** One service call's part of the formula variable (SPEC §4.6). */
interface CallSlot {
  request: { service_name: string; payload: unknown };
  response: AdapterResponse | null;
}

/** Runs the service requests in `sequence` order while the run is not in failure (SPEC §4.4 step 5). */
export async function runServiceRequests(state: RunState, adapters: AdapterResolver): Promise<void> {
  for (const request of state.integration.serviceRequests) {
    if (state.failure) return;
    const fv = request.formulaVariable;
    if (!request.callForEach) {
      const bindings = { sritem: null, sridx: null };
      if (request.callIf && !withBindings(state, bindings, () => callCell(state, request.callIf as never)))
        continue;
      const failed = await runCall(state, request, adapters, null, null, (slot) => {
        state.namespace[fv] = slot;
      });
      if (failed && request.abortOnFailure) return enterFailure(state, failed.kind, failed.details);
      continue;
    }
    const items = toItems(callCell(state, request.callForEach), `${fv}.call_for_each`);
    const slots: (CallSlot | null)[] = [];
    state.namespace[fv] = slots;
    for (const [sridx, sritem] of items.entries()) {
      slots[sridx] = null;
      if (
        request.callIf &&
        !withBindings(state, { sritem, sridx }, () => callCell(state, request.callIf as never))
      )
        continue;
      const failed = await runCall(state, request, adapters, sritem, sridx, (slot) => {
        slots[sridx] = slot;
      });
      if (failed && request.abortOnFailure) return enterFailure(state, failed.kind, failed.details);
    }
  }
}

interface CallFailure {
  kind: FailureKind;
  details: string[];
}

/** One service call, through its eight hooks in order; says how it failed, or undefined when it succeeded. */
async function runCall(
  state: RunState,
  request: CompiledServiceRequest,
  adapters: AdapterResolver,
  sritem: unknown,
  sridx: number | null,
  setSlot: (slot: CallSlot) => void,
): Promise<CallFailure | undefined> {
  const bindings = { sritem, sridx };
  const hook = (name: keyof CompiledServiceRequest["hooks"]) => {
    const cell = request.hooks[name];
    // Most of the eight hooks are absent: no loop variables are bound for them.
    if (cell) withBindings(state, bindings, () => callCell(state, cell));
  };
  const started = performance.now();
  let failure: CallFailure | undefined;
  const failWith = (kind: FailureKind, details: string[]) => {
    failure ??= { kind, details };
  };
  const guard = (work: () => void) => {
    try {
      work();
    } catch (error) {
      if (error instanceof RunEnded) throw error;
      const kind = recordError(state, error);
      failWith(kind, [(error as Error).message]);
    }
  };

  // Prepare: hook, mappings, REQUEST rules.
  let slot: CallSlot | undefined;
  guard(() => {
    hook("before_prepare_request_hook");
    const payload = withBindings(state, bindings, () => applyFieldMappings(state, request));
    slot = { request: { service_name: request.serviceName, payload }, response: null };
    setSlot(slot);
    if (request.requestRules.length === 0) return;
    const rules = runRules(state, request.requestRules, bindings);
    if (rules.aborted) failWith("validation", rules.messages);
  });
  if (failure || !slot) {
    addRequestItem(state, request, sridx, started, slot?.request.payload ?? null, null);
    guard(() => hook("after_prepare_request_failure_hook"));
    guard(() => hook("after_overall_failure_hook"));
    return failure;
  }
  guard(() => hook("after_prepare_request_success_hook"));
  if (!failure) guard(() => hook("before_execute_request_hook"));
  if (failure) {
    addRequestItem(state, request, sridx, started, slot.request.payload, null);
    guard(() => hook("after_overall_failure_hook"));
    return failure;
  }

  // Execute, then RESPONSE masks and rules.
  const { response, timedOut } = await execute(state, request, adapters, slot.request, sridx);
  slot.response = response;
  const item = addRequestItem(state, request, sridx, started, slot.request.payload, response);
  guard(() => {
    if (item.response && request.responseMasks.length > 0) {
      const short = applyMasks(state, request.responseMasks, item.response.payload, bindings);
      if (short.length)
        failWith(
          "error",
          short.map((mask) => `mask ${mask.label} was applied fewer times than it must be`),
        );
    }
  });
  if (!response.success) failWith(timedOut ? "timeout" : "service", response.messages);
  if (response.success && !failure && request.responseRules.length > 0) {
    guard(() => {
      const rules = runRules(state, request.responseRules, bindings);
      if (rules.aborted) failWith("validation", rules.messages);
    });
  }
  guard(() => hook(failure ? "after_execute_request_failure_hook" : "after_execute_request_success_hook"));
  guard(() => hook(failure ? "after_overall_failure_hook" : "after_overall_success_hook"));
  return failure;
}

/** Calls the adapter within the run's time limit; a throw or a time-out is `success: false`, never an uncaught error. */
async function execute(
  state: RunState,
  request: CompiledServiceRequest,
  adapters: AdapterResolver,
  prepared: CallSlot["request"],
  sridx: number | null,
): Promise<{ response: AdapterResponse; timedOut: boolean }> {
  try {
    const adapter = adapters(request.system);
    const context = {
      system: request.system,
      formulaVariable: request.formulaVariable,
      sridx,
      get signal() {
        return runSignal(state);
      },
    };
    const answer = await withinDeadline(
      adapter.execute(snapshot(prepared) as CallSlot["request"], context),
      state.runDeadline,
      () => state.abort?.abort(),
    );
    if (answer === timedOut) {
      const message = `${request.formulaVariable}: the run timed out waiting for system ${request.system}`;
      return { response: { success: false, payload: null, messages: [message] }, timedOut: true };
    }
    return { response: normalizeResponse(answer), timedOut: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { response: { success: false, payload: null, messages: [message] }, timedOut: false };
  }
}

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
  request: CompiledServiceRequest,
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

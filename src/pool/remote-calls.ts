import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { AdapterResponse } from "../adapters/adapter.js";
import type { CallintAnswer, CallintRequest } from "../engine/callint.js";
import type { RemoteCalls } from "../engine/remote.js";
import { errorMessage } from "../errors.js";
import type { RemoteAnswer, RemoteCall, RemoteCallintRequest } from "./task.js";

/**
 * A worker's side of a Python run's remote calls: each is posted on the task's port, then the thread waits
 * blocked on the task's flag until the other side has posted the answer, which it takes off the port at
 * once. A callint child's records are written where it ran.
 */
/**
 * How long past the cell's deadline an answer is waited for: the other side gives up at the deadline and
 * says why (a call whose outcome is unknown), which the cell's history should have. Well within the grace
 * a stuck cell gets before its worker is ended (stuck-cells.ts).
 */
const answerGraceMs = 250;

export function remoteCallsOver(port: MessagePort, calls: SharedArrayBuffer): RemoteCalls {
  const flag = new Int32Array(calls);
  let lastId = 0;
  const call = (message: RemoteCall, waitMs: number): RemoteAnswer & { value?: unknown } => {
    const id = ++lastId;
    Atomics.store(flag, 0, 0);
    port.postMessage({ ...message, id });
    if (Atomics.wait(flag, 0, 0, Math.max(0, waitMs) + answerGraceMs) === "timed-out")
      throw new Error(`${message.kind}: no answer within the cell's time`);
    // The answer to this call: one to a call that timed out before may come first, and is dropped.
    let answer: (RemoteAnswer & { id: number }) | undefined;
    do answer = receiveMessageOnPort(port)?.message as (RemoteAnswer & { id: number }) | undefined;
    while (answer && answer.id !== id);
    if (!answer) throw new Error(`${message.kind}: the answer was lost`);
    if ("error" in answer) throw new Error(answer.error);
    return answer;
  };
  return {
    calladapter: (target, request, waitMs) => {
      try {
        return call({ kind: "calladapter", target, request, remainingMs: waitMs }, waitMs)
          .value as AdapterResponse;
      } catch (error) {
        // As a service request's call: a failed answer, never a thrown error.
        return { success: false, payload: null, messages: [errorMessage(error)] };
      }
    },
    callint: (request, waitMs) =>
      call({ kind: "callint", request: crossingRequest(request) }, waitMs).value as CallintAnswer,
  };
}

/** A callint request as it crosses threads: a function does not, so the namespace goes as its value. */
export function crossingRequest(request: CallintRequest): RemoteCallintRequest {
  const { parent } = request;
  // Only a sync child reads its parent's namespace.
  const namespace = request.runAsync === true ? null : parent.namespace();
  return { ...request, parent: { ...parent, namespace } };
}

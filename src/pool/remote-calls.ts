import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { AdapterResponse } from "../adapters/adapter.js";
import type { CallintAnswer, CallintRequest } from "../engine/callint.js";
import type { RemoteCalls } from "../engine/remote.js";
import { errorMessage } from "../errors.js";
import type { RemoteAnswer, RemoteCall, RemoteCallintRequest } from "../runner/messages.js";

/**
 * How long past the cell's deadline an answer is waited for: a calladapter gives up at the deadline on the
 * other side and says why (its outcome is unknown), which the cell's history should have. Well within the
 * grace a stuck cell gets before its worker is ended (run-pool.ts).
 */
const answerGraceMs = 250;

type Answer = RemoteAnswer & { id: number; value?: unknown };

/**
 * A worker's side of a Python run's remote calls: each is posted on the task's port, then the thread waits
 * blocked on the task's flag until the other side has posted the answer, which it takes off the port at
 * once. A callint child's records are written where it ran.
 */
export function remoteCallsOver(port: MessagePort, calls: SharedArrayBuffer): RemoteCalls {
  const flag = new Int32Array(calls);
  let lastId = 0;
  // The answer to call `id` if it has come; answers to calls that gave up before it are dropped.
  const take = (id: number): Answer | undefined => {
    for (;;) {
      const answer = receiveMessageOnPort(port)?.message as Answer | undefined;
      if (!answer || answer.id === id) return answer;
    }
  };
  // Call `id`'s answer, waited for blocked until `until`. A late answer to an earlier call wakes the thread
  // too, and it waits again; the flag is cleared before the port is read again, so that an answer posted
  // in between is not missed.
  const answerTo = (id: number, until: number): Answer | undefined => {
    for (;;) {
      const answer = take(id);
      if (answer) return answer;
      Atomics.store(flag, 0, 0);
      const posted = take(id);
      if (posted) return posted;
      const left = until - performance.now();
      if (left <= 0 || Atomics.wait(flag, 0, 0, left) === "timed-out") return take(id);
    }
  };
  const call = (message: RemoteCall, waitMs: number): Answer => {
    const id = ++lastId;
    const until = performance.now() + Math.max(0, waitMs) + answerGraceMs;
    port.postMessage({ ...message, id });
    const answer = answerTo(id, until);
    if (!answer) throw new Error(`${message.kind}: no answer within the cell's time`);
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

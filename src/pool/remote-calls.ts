import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { AdapterResponse } from "../adapters/adapter.js";
import type { CallintAnswer } from "../engine/callint.js";
import type { RemoteCalls } from "../engine/remote.js";
import type { ChildRecord, RemoteAnswer, RemoteCall } from "./task.js";

/** How long past the run's own time a remote call's answer is waited for before the cell gives up. */
const answerGraceMs = 1000;

/**
 * A worker's side of a Python run's remote calls: each is posted on the task's port, then the thread waits
 * blocked on the task's flag until the other side has posted the answer, which it takes off the port at
 * once. A callint child's records join the run's own children.
 */
export function remoteCallsOver(
  port: MessagePort,
  calls: SharedArrayBuffer,
  children: ChildRecord[],
): RemoteCalls {
  const flag = new Int32Array(calls);
  const call = (message: RemoteCall, waitMs: number): RemoteAnswer & { value?: unknown } => {
    Atomics.store(flag, 0, 0);
    port.postMessage(message);
    if (Atomics.wait(flag, 0, 0, Math.max(0, waitMs) + answerGraceMs) === "timed-out")
      throw new Error(`${message.kind}: no answer within the run's time`);
    const answer = receiveMessageOnPort(port)?.message as RemoteAnswer | undefined;
    if (!answer) throw new Error(`${message.kind}: the answer was lost`);
    if ("error" in answer) throw new Error(answer.error);
    children.push(...(answer.childRecords ?? []));
    return answer;
  };
  return {
    calladapter: (target, request, remainingMs) =>
      call({ kind: "calladapter", target, request, remainingMs }, remainingMs).value as AdapterResponse,
    callint: (request) => {
      const { parent } = request;
      // Only a sync child reads its parent's namespace; a function does not cross threads, its value does.
      const namespace = request.runAsync === true ? null : parent.namespace();
      const message: RemoteCall = {
        kind: "callint",
        request: { ...request, parent: { ...parent, namespace } },
      };
      return call(message, parent.remainingMs).value as CallintAnswer;
    },
  };
}

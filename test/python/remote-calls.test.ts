import { MessageChannel, Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { remoteCallsOver } from "../../src/pool/remote-calls.js";

// The thread that answers a Python run's calls: each call's answer after the delay its target names, then
// the flag set and the waiting thread woken, as the pool's side does.
const answering = `
const { workerData } = require("node:worker_threads");
const { port, calls } = workerData;
const flag = new Int32Array(calls);
port.on("message", (call) => {
  setTimeout(() => {
    port.postMessage({ id: call.id, value: { success: true, payload: { answered: call.id }, messages: [] } });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }, call.target.delayMs);
});
`;

let answerer: Worker | undefined;
afterEach(async () => {
  await answerer?.terminate();
});

describe("a Python run's remote calls", () => {
  it("waits on for its own answer when a late answer to an earlier call wakes it", () => {
    const { port1, port2 } = new MessageChannel();
    const calls = new SharedArrayBuffer(4);
    answerer = new Worker(answering, {
      eval: true,
      workerData: { port: port2, calls },
      transferList: [port2],
    });
    const remote = remoteCallsOver(port1, calls);
    const call = (delayMs: number, waitMs: number) =>
      remote.calladapter({ delayMs } as never, {} as never, waitMs);
    // The first call gives up before its answer comes, which then comes while the second one waits.
    expect(call(600, 0)).toMatchObject({
      success: false,
      messages: ["calladapter: no answer within the cell's time"],
    });
    expect(call(900, 5000)).toMatchObject({ success: true, payload: { answered: 2 } });
    port1.close();
  }, 10_000);
});

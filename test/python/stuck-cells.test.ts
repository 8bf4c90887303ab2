import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { watchStuckCells } from "../../src/pool/stuck-cells.js";

// A worker that reports one cell of `task` due at `dueInMs`, then blocks its thread as a call into C code
// does, where no interrupt reaches it. The build's module is the one pool workers load.
const stuckWorker = `
const { workerData } = require("node:worker_threads");
import(workerData.module).then(({ reportCellsOn }) => {
  const reporter = reportCellsOn(workerData.buffer);
  // No slot free: it cannot report, and says so with its exit code.
  if (!reporter) process.exit(3);
  reporter.arm(performance.timeOrigin + performance.now() + workerData.dueInMs, workerData.task);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;
const module = new URL("../../dist/pool/stuck-cells.js", import.meta.url).href;

const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.terminate()));
});

function startStuck(buffer: SharedArrayBuffer, task: number, dueInMs: number): Worker {
  const worker = new Worker(stuckWorker, { eval: true, workerData: { module, buffer, task, dueInMs } });
  started.push(worker);
  return worker;
}

describe("stuck Python cells", () => {
  it("ends the worker whose cell is past its deadline and the grace, and names that cell's task", async () => {
    const watch = watchStuckCells(() => started, 100);
    const stuck = watch.begin();
    const bystander = watch.begin();
    const worker = startStuck(watch.buffer, stuck, 0);
    const [code] = await once(worker, "exit");
    expect(code).toBe(1);
    expect([watch.stopped(stuck), watch.stopped(bystander)]).toEqual([true, false]);
    watch.end(stuck);
    watch.end(bystander);
    expect(watch.stopped(stuck)).toBe(false);
    watch.close();
  }, 10_000);

  it("gives the slot of a worker that ended to the next one", async () => {
    // One slot: the second worker reports only once the first one's slot is free again.
    const watch = watchStuckCells(() => started, 50, 1);
    const first = startStuck(watch.buffer, watch.begin(), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.terminate();
    started.splice(started.indexOf(first), 1);
    // The pool looks again while a task runs, and frees the slot of the worker that is gone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const task = watch.begin();
    const second = startStuck(watch.buffer, task, 0);
    const [code] = await once(second, "exit");
    expect([code, watch.stopped(task)]).toEqual([1, true]);
    watch.close();
  }, 10_000);

  it("leaves a worker whose cell is within its time alone", async () => {
    const watch = watchStuckCells(() => started, 0);
    const task = watch.begin();
    const worker = startStuck(watch.buffer, task, 60_000);
    const exited = once(worker, "exit").then(() => "exited");
    const waited = new Promise((resolve) => setTimeout(() => resolve("alive"), 600));
    expect(await Promise.race([exited, waited])).toBe("alive");
    expect(watch.stopped(task)).toBe(false);
    watch.end(task);
    watch.close();
  }, 10_000);
});

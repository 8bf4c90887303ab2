import { Worker } from "node:worker_threads";

/**
 * Stops a Python cell that runs past its deadline. Python holds the thread it runs on, so another thread
 * watches: at the deadline it writes SIGINT into Pyodide's interrupt buffer, and Python raises
 * KeyboardInterrupt at its next check (again every few milliseconds, should the cell catch it).
 */
export interface Watchdog {
  /** The buffer Pyodide reads (`setInterruptBuffer`). */
  interrupt: Int32Array;
  /**
   * Watches from now until `disarm`; `deadline` is a `performance.now()` time of this thread, `task` what
   * this thread's reporter says the cell is part of, and `cell` the cell's `cellKey`.
   */
  arm(deadline: number, task: number, cell: number): void;
  disarm(): void;
}

/** Told of every cell a thread's watchdog watches: a pool of workers ends one whose cell is stuck past it. */
export interface CellReporter {
  /** `deadline` in ms since the epoch, which every thread's clock agrees on; `cell` the cell's `cellKey`. */
  arm(deadline: number, task: number, cell: number): void;
  disarm(): void;
}

/**
 * What a cell reports when its run is part of no task of a pool's: its worker is still ended when the cell
 * is stuck, and the runs on it end with `worker_died`.
 */
export const unknownTask = -1;

/** Who this thread's watchdog tells of the cells it watches (a pool's worker: its stuck-cell sweep). */
const thisThread: { reporter?: CellReporter | undefined } = {};

/** Tells `to` of every cell this thread's watchdog watches from now on. */
export function reportCellsTo(to: CellReporter | undefined): void {
  thisThread.reporter = to;
}

const lookAgainMs = 50;
const resendMs = 5;

// Int32 slots: 0 the interrupt buffer, 1 the arming (0 idle, else a count that changes each time), 2 set
// while the watcher sleeps until armed. Float64 slot 2: the deadline in ms since the epoch, which every
// thread's clock agrees on. An armed watcher looks again at least every `lookAgainMs`, so a cell armed
// while it slept toward an earlier cell's deadline is stopped that late at most; only an idle one needs
// waking. Past a deadline it writes SIGINT again every `resendMs`, until the cell ends.
const watcher = `
const { workerData } = process.getBuiltinModule("node:worker_threads");
const slots = new Int32Array(workerData);
const times = new Float64Array(workerData);
const sigint = 2;
for (;;) {
  const armed = Atomics.load(slots, 1);
  if (armed === 0) {
    Atomics.store(slots, 2, 1);
    Atomics.wait(slots, 1, 0);
    Atomics.store(slots, 2, 0);
    continue;
  }
  const left = times[2] - (performance.timeOrigin + performance.now());
  if (left > 0) { Atomics.wait(slots, 1, armed, Math.min(left, ${lookAgainMs})); continue; }
  Atomics.store(slots, 0, sigint);
  Atomics.wait(slots, 1, armed, ${resendMs});
}
`;

export function createWatchdog(): Watchdog {
  const shared = new SharedArrayBuffer(24);
  const slots = new Int32Array(shared);
  const times = new Float64Array(shared);
  // Whatever flags the process has (--input-type=module), the watcher is a plain script.
  const worker = new Worker(watcher, { eval: true, workerData: shared, execArgv: [] });
  // It never keeps a process alive.
  worker.unref();
  let count = 0;
  return {
    interrupt: slots.subarray(0, 1),
    arm(deadline, task, cell) {
      const at = performance.timeOrigin + deadline;
      times[2] = at;
      thisThread.reporter?.arm(at, task, cell);
      // A SIGINT the watcher wrote for the cell before, just as it ended, is not for this one.
      Atomics.store(slots, 0, 0);
      count = (count % 0x7ffffffe) + 1;
      Atomics.store(slots, 1, count);
      if (Atomics.load(slots, 2) === 1) Atomics.notify(slots, 1);
    },
    disarm() {
      thisThread.reporter?.disarm();
      Atomics.store(slots, 1, 0);
      // A SIGINT written just as the cell ended is not for the next one.
      Atomics.store(slots, 0, 0);
    },
  };
}

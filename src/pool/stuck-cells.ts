import { performance } from "node:perf_hooks";
import { threadId, type Worker } from "node:worker_threads";
import type { CellReporter } from "../python/watchdog.js";

/**
 * Cells stuck in one call that no deadline check reaches: a Python cell in C code (`sum(range(10**12))`),
 * which the interrupt cannot stop, or a JavaScript cell in a built-in (a regular expression with a
 * lookahead that backtracks without end). Each worker says in shared memory which task's cell holds it
 * and until when; the pool ends a worker whose cell still holds it `graceMs` past its deadline, and
 * replaces it.
 */
export interface StuckCellWatch {
  /** Goes to the workers (RunWorkerData), which report on it with `reportCellsOn`. */
  buffer: SharedArrayBuffer;
  /** A number for a task about to run, which its cells report. */
  begin(): number;
  /** Whether the task's worker was ended for a cell of it stuck past its deadline. */
  stopped(task: number): boolean;
  /** The `cellKey` of the task's cell that was stuck, when its worker was ended for one. */
  stoppedCell(task: number): number | undefined;
  /**
   * Whether the task's run acted outside its worker (called a system, opened a vault): one whose worker
   * ended before it did (for another run's stuck cell) did nothing that shows, and can run on another.
   */
  acted(task: number): boolean;
  /** The task has ended. */
  end(task: number): void;
  /**
   * Whether a cell has held the worker for a while now: a task sent there waits for it, where another
   * worker would answer it at once.
   */
  held(worker: Worker): boolean;
  /** Frees the slots of workers that ended (the pool says when one does, not which: its id is gone). */
  freeEnded(): void;
  close(): void;
}

/** How many workers can report at once: more than any pool has at a time. */
const slotsByDefault = 256;
/** How often the pool looks for a stuck cell while tasks run. */
const sweepMs = 200;

/**
 * Each slot: a deadline and when its cell began (8 bytes each), its worker's thread id, its task and its
 * cell's `cellKey` (4 each).
 */
const slotBytes = 28;
/** How long a cell holds its worker before the pool sends that worker nothing while another is free. */
const heldMs = 20;
/**
 * After the slots, a byte per task number modulo this, set when the task's run first acts outside its
 * worker: far more than the tasks a pool holds at once, so that no two of them share a byte.
 */
const actedBytes = 65536;

function views(buffer: SharedArrayBuffer) {
  const slots = (buffer.byteLength - actedBytes) / slotBytes;
  return {
    // Whether the run of each task number acted outside its worker, modulo actedBytes.
    acted: new Uint8Array(buffer, slots * slotBytes, actedBytes),
    slots,
    // When the cell of each slot's worker is due to end, and when it began, in ms since the epoch.
    deadlines: new Float64Array(buffer, 0, slots),
    armedAt: new Float64Array(buffer, slots * 8, slots),
    // Which worker thread holds each slot; 0 when none does.
    owners: new Int32Array(buffer, slots * 16, slots),
    // The task whose cell runs on it now; 0 when none runs.
    tasks: new Int32Array(buffer, slots * 20, slots),
    // The cell that runs on it now, as its cellKey.
    cells: new Int32Array(buffer, slots * 24, slots),
  };
}

export function watchStuckCells(
  threads: () => Worker[],
  graceMs: number,
  slotCount = slotsByDefault,
): StuckCellWatch {
  const buffer = new SharedArrayBuffer(slotCount * slotBytes + actedBytes);
  const { slots, deadlines, armedAt, owners, tasks, cells, acted } = views(buffer);
  // Each worker's slot, found once.
  const slotOf = new Map<number, number>();
  const running = new Set<number>();
  // The tasks whose worker was ended for a cell of theirs, and that cell's key.
  const stopped = new Map<number, number>();
  const ending = new Set<number>();
  let next = 0;
  let sweeping: NodeJS.Timeout | undefined;

  const freeEnded = () => {
    const alive = new Set(threads().map((thread) => thread.threadId));
    for (let slot = 0; slot < slots; slot++) {
      const owner = Atomics.load(owners, slot);
      if (owner === 0 || alive.has(owner)) continue;
      Atomics.store(tasks, slot, 0);
      Atomics.store(owners, slot, 0);
      ending.delete(owner);
      slotOf.delete(owner);
    }
  };

  const sweep = () => {
    // It stops once no task runs, not at each task's end: a busy pool's tasks end and begin all the time.
    if (running.size === 0) {
      clearInterval(sweeping);
      sweeping = undefined;
      return;
    }
    freeEnded();
    const now = performance.timeOrigin + performance.now();
    for (let slot = 0; slot < slots; slot++) endIfStuck(slot, now);
  };
  /** Ends the worker of the cell in `slot` if it is past its deadline and its grace, and says which cell. */
  const endIfStuck = (slot: number, now: number) => {
    const owner = Atomics.load(owners, slot);
    const task = Atomics.load(tasks, slot);
    const deadline = deadlines[slot] as number;
    if (task === 0 || now <= deadline + graceMs) return;
    const worker = threads().find((thread) => thread.threadId === owner);
    // A cell that ended or began as we looked (its task's next one), or a worker already on its way out.
    const same = Atomics.load(tasks, slot) === task && deadlines[slot] === deadline;
    if (!worker || ending.has(owner) || !same) return;
    ending.add(owner);
    if (running.has(task)) stopped.set(task, Atomics.load(cells, slot));
    void worker.terminate();
  };

  return {
    buffer,
    begin() {
      next = next === 0x7fffffff ? 1 : next + 1;
      Atomics.store(acted, next % actedBytes, 0);
      running.add(next);
      sweeping ??= setInterval(sweep, sweepMs).unref();
      return next;
    },
    stopped: (task) => stopped.has(task),
    stoppedCell: (task) => stopped.get(task),
    acted: (task) => Atomics.load(acted, task % actedBytes) === 1,
    held(worker) {
      let slot = slotOf.get(worker.threadId);
      if (slot === undefined) {
        slot = Array.from(owners).indexOf(worker.threadId);
        if (slot < 0) return false;
        slotOf.set(worker.threadId, slot);
      }
      if (Atomics.load(tasks, slot) === 0) return false;
      return performance.timeOrigin + performance.now() - (armedAt[slot] as number) > heldMs;
    },
    freeEnded,
    end(task) {
      running.delete(task);
      stopped.delete(task);
    },
    close() {
      if (sweeping) clearInterval(sweeping);
    },
  };
}

/** What a worker reports on the pool's buffer: the tasks whose runs act outside it, and its cells. */
export interface TaskReporter extends CellReporter {
  acting(task: number): void;
}

/** A worker's reporter on the pool's buffer, in a slot of its own; none when every slot is taken. */
export function reportCellsOn(buffer: SharedArrayBuffer): TaskReporter | undefined {
  const { slots, deadlines, armedAt, owners, tasks, cells, acted } = views(buffer);
  for (let slot = 0; slot < slots; slot++) {
    if (Atomics.compareExchange(owners, slot, 0, threadId) !== 0) continue;
    return {
      acting(task) {
        Atomics.store(acted, task % actedBytes, 1);
      },
      arm(deadline, task, cell) {
        // The deadline and the cell first: the pool reads them only once it sees the task.
        deadlines[slot] = deadline;
        Atomics.store(cells, slot, cell);
        armedAt[slot] = performance.timeOrigin + performance.now();
        Atomics.store(tasks, slot, task);
      },
      disarm() {
        Atomics.store(tasks, slot, 0);
      },
    };
  }
  return undefined;
}

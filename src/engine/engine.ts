import type { CellReporter } from "../python/watchdog.js";
import { createDeadlines, type Deadlines } from "./deadlines.js";
import { type CellRejections, createCellRejections } from "./rejections.js";

/**
 * What the runs of one host (a process, a worker thread) share: the waits that must end at their
 * deadlines, the names of compiled cells, and which cell left a promise rejected. A host makes one, opens
 * its projects with it, and asks it about rejections nobody handled (see `rejections.note`).
 */
export interface Engine {
  deadlines: Deadlines;
  rejections: CellRejections;
  /** A name for a newly compiled cell's code, unique in the engine: stacks and rejections find the cell by it. */
  cellName(prefix: "bass-cell" | "bass-py-cell"): string;
  /**
   * Told of each JavaScript cell while its code holds the thread, in a pool's worker: the pool ends a worker
   * whose cell holds it past its deadline (a call into a built-in no check can stop). None elsewhere.
   */
  cellReporter?: CellReporter | undefined;
}

export function createEngine(): Engine {
  let cells = 0;
  return {
    deadlines: createDeadlines(),
    rejections: createCellRejections(),
    cellName: (prefix) => `${prefix}-${cells++}`,
  };
}

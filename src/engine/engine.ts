import type { CellReporter } from "../python/watchdog.js";
import { createDeadlines, type Deadlines } from "./deadlines.js";
import { type CellRejections, createCellRejections } from "./rejections.js";
import { createThreadMarks, type ThreadMarks } from "./thread-marks.js";

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
  /** What the cell reporter is told while cells' code and values hold the thread. */
  marks: ThreadMarks;
}

export function createEngine(): Engine {
  let cells = 0;
  const engine: Engine = {
    deadlines: createDeadlines(),
    rejections: createCellRejections(),
    cellName: (prefix) => `${prefix}-${cells++}`,
    marks: createThreadMarks(() => engine.cellReporter),
  };
  return engine;
}

import type { CellReporter } from "../python/watchdog.js";

/** Which cell holds the thread, and until when (a `performance.now()` time). */
export interface CellMark {
  deadline: number;
  /** The pool's task the cell's run is part of (`unknownTask` outside one). */
  task: number;
  /** The cell's `cellKey`. */
  cell: number;
}

/**
 * What a thread tells the pool's stuck-cell watch (src/pool/stuck-cells.ts) while cell-made code or
 * values hold it: a cell's own code, bass reading what a cell made (a getter, `toJSON`, a Proxy's trap),
 * and the promise work a cell queued, which runs before the thread next returns to its event loop. Past
 * the mark's deadline and a grace, the pool ends the worker, whatever built-in holds it. No reporter
 * (bass's own thread): nothing is marked.
 */
export interface ThreadMarks {
  /** Runs `work` marked; the outermost mark is the one the pool sees, held on until the thread is idle. */
  within<T>(mark: CellMark, work: () => T): T;
  /** Marks the thread held from now until it next returns to its event loop; `released` is told then. */
  holdUntilIdle(mark: CellMark, released?: () => void): void;
}

export function createThreadMarks(reporter: () => CellReporter | undefined): ThreadMarks {
  let depth = 0;
  let waitingForIdle = false;
  const released = new Set<() => void>();
  const arm = (mark: CellMark) =>
    reporter()?.arm(performance.timeOrigin + mark.deadline, mark.task, mark.cell);
  const release = () => {
    waitingForIdle = false;
    if (depth === 0) reporter()?.disarm();
    for (const tell of released) tell();
    released.clear();
  };
  const holdUntilIdle = (mark: CellMark, tell?: () => void) => {
    if (reporter() === undefined) return;
    if (depth === 0) arm(mark);
    if (tell) released.add(tell);
    // Microtasks run before an immediate: promise work queued now is still marked.
    if (waitingForIdle) return;
    waitingForIdle = true;
    setImmediate(release);
  };
  return {
    within(mark, work) {
      if (depth === 0) arm(mark);
      depth++;
      try {
        return work();
      } finally {
        depth--;
        if (depth === 0) holdUntilIdle(mark);
      }
    },
    holdUntilIdle,
  };
}

import type { PendingLines } from "./pending.js";
import type { HistoryProblem, SegmentWriter } from "./segments.js";

/** How long a record may wait in memory for others to share its write; `kill -9` may lose this much. */
const groupCommitMs = 10;

/** Writes the pending lines a batch at a time, one write per batch (group commit). */
export interface BatchWriter {
  /** Writes the queued lines once the group-commit wait is over, unless a batch is already due. */
  schedule(): void;
  /** Writes every queued line now, and those queued meanwhile, then seals the segment. */
  flush(): Promise<void>;
  /** The runs whose lines were lost since the last call, with the error that lost the first. */
  takeLost(): HistoryProblem | undefined;
}

/**
 * Group commit: the runs that end within a few milliseconds share one write, so serve's many runs cost a
 * system call per wait instead of a file each. File work runs on one chain, one task at a time, in order.
 */
export function createBatchWriter(pending: PendingLines, segments: SegmentWriter): BatchWriter {
  let chain: Promise<void> = Promise.resolve();
  // The wait before the next write, while records are queued; it keeps the process alive until they are written.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lost = createLostRuns();

  const enqueue = (task: () => Promise<void>) => {
    chain = chain.then(task);
    return chain;
  };

  /**
   * Writes the lines queued now, a segment's room at a time; lines queued meanwhile wait for their own
   * timer. (Draining until the queue was empty made serve write far more often than once per wait: each
   * write takes a round trip to a libuv thread, during which a busy server queues more.)
   */
  const drain = async () => {
    const batch = pending.take();
    const ids = [...batch.keys()];
    const lines = [...batch.values()];
    for (let done = 0; done < ids.length; ) {
      let end = ids.length;
      try {
        end = Math.min(end, done + (await segments.room()));
        await segments.append(lines.slice(done, end));
      } catch (error) {
        // The batch is lost, and flush reports it; so is everything left when no segment could be opened.
        lost.add(ids.slice(done, end), error);
      }
      pending.settle(ids.slice(done, end));
      done = end;
    }
    await segments.prune();
  };

  return {
    schedule() {
      timer ??= setTimeout(() => {
        timer = undefined;
        void enqueue(drain);
      }, groupCommitMs);
    },

    async flush() {
      // Written now: the wait would only keep the process longer.
      clearTimeout(timer);
      timer = undefined;
      await enqueue(async () => {
        // Also the runs that end meanwhile (an async run serve's stop waited for): none is left queued.
        do await drain();
        while (pending.queued() > 0);
        await segments.seal();
      });
    },

    takeLost: lost.take,
  };
}

/** Runs whose lines could not be written, named by flush. */
function createLostRuns() {
  let runs: string[] = [];
  let first: unknown;
  return {
    add(ids: readonly string[], error: unknown) {
      if (runs.length === 0) first = error;
      runs = runs.concat(ids);
    },
    take(): HistoryProblem | undefined {
      const taken = runs;
      runs = [];
      if (taken.length === 0) return undefined;
      return {
        what: `cannot keep ${taken.length === 1 ? `run ${taken[0]}` : `${taken.length} runs`}`,
        error: first,
      };
    },
  };
}

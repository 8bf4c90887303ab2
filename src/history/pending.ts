/** The lines of records not on disk yet, by run id: found by reads until they are written (or lost). */
export interface PendingLines {
  /** Queues a record's line; a queued older line of the same run is replaced in its place. */
  add(id: string, line: string): void;
  get(id: string): string | undefined;
  /** Every pending line; a queued line wins over one of the same run being written. */
  all(): Map<string, string>;
  /** How many lines are queued for the next batch. */
  queued(): number;
  /** The queued lines, as the batch being written now; later lines queue for the next batch. */
  take(): Map<string, string>;
  /** Drops lines of the batch being written once they are on disk or lost. */
  settle(ids: readonly string[]): void;
}

export function createPendingLines(): PendingLines {
  // Each batch takes the queue whole and starts a new one: a long-lived Map would keep dropped lines alive
  // (once its table is old, V8 regrows it in the old generation and the dropped table holds what it held),
  // and text kept as lines lets a run's objects die young.
  let queue = new Map<string, string>();
  let writing = new Map<string, string>();
  return {
    add(id, line) {
      queue.set(id, line);
    },
    get(id) {
      return queue.get(id) ?? writing.get(id);
    },
    all() {
      return new Map([...writing, ...queue]);
    },
    queued() {
      return queue.size;
    },
    take() {
      writing = queue;
      queue = new Map();
      return writing;
    },
    settle(ids) {
      for (const id of ids) writing.delete(id);
    },
  };
}

/** Items gathered to be handled together; `flush` handles those waiting now. */
export interface Batch<T> {
  add(item: T): void;
  flush(): void;
}

/**
 * A batch that hands its items to `handle` together: at the end of the event-loop turn (setImmediate runs
 * right after the turn's I/O), or `waitMs` after its first item. One write for many instead of one each.
 */
export function createBatch<T>(handle: (items: T[]) => void, waitMs?: number): Batch<T> {
  let waiting: T[] = [];
  // Cancels the wait in progress, if any.
  let cancel: (() => void) | undefined;
  const flush = () => {
    cancel?.();
    cancel = undefined;
    if (waiting.length === 0) return;
    const items = waiting;
    waiting = [];
    handle(items);
  };
  const wait = (): (() => void) => {
    if (waitMs === undefined) {
      const immediate = setImmediate(flush);
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(flush, waitMs);
    return () => clearTimeout(timer);
  };
  return {
    add(item) {
      waiting.push(item);
      cancel ??= wait();
    },
    flush,
  };
}

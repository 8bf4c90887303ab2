/** What `Deadlines.within` gives when the deadline comes before the work settles. */
export const timedOut: unique symbol = Symbol("timed out");

/** A wait in progress: a node of the list of waits, unlinked (its links cleared) once it ends. */
interface Waiting {
  deadline: number;
  expire(): void;
  previous: Waiting | undefined;
  next: Waiting | undefined;
}

/** The waits of one engine (a project's realm): every run's cells and service calls that must end by a time. */
export interface Deadlines {
  /**
   * The outcome of `work`, or `timedOut` once `performance.now()` passes `deadline` first (`onTimeout` runs
   * then). While a wait is in progress the timer keeps the process alive, since the work may not.
   */
  within<T>(work: T | PromiseLike<T>, deadline: number, onTimeout: () => void): Promise<T | typeof timedOut>;
}

/**
 * Every wait in progress, as a doubly linked list, and one timer for the earliest of their deadlines: a
 * Timeout per wait costs more than a fast call itself (bench/tricks.js, "deadline list"). Not a Set: a
 * long-lived Set's dropped tables kept waits (and their runs) alive past young-generation collections. A
 * wait that ends clears its own links, so an ended wait never holds another.
 */
export function createDeadlines(): Deadlines {
  let first: Waiting | undefined;
  let count = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  const watch = (entry: Waiting): void => {
    entry.next = first;
    if (first) first.previous = entry;
    first = entry;
    count++;
    if (entry.deadline < timerAt) arm(entry.deadline);
    else if (count === 1) timer?.ref();
  };

  const unwatch = (entry: Waiting): void => {
    const { previous, next } = entry;
    // Already unlinked: it expired before its work settled.
    if (!previous && first !== entry) return;
    if (previous) previous.next = next;
    else first = next;
    if (next) next.previous = previous;
    entry.previous = undefined;
    entry.next = undefined;
    count--;
    // The timer stays armed for the next wait, but no longer keeps the process alive.
    if (count === 0) timer?.unref();
  };

  const arm = (at: number): void => {
    clearTimeout(timer);
    timerAt = at;
    // Whole milliseconds, rounded up: a timer never fires before the deadline it is armed for.
    timer = setTimeout(expireDue, Math.max(1, Math.ceil(at - performance.now())));
  };

  const expireDue = (): void => {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: Waiting[] = [];
    for (let entry = first; entry; entry = entry.next) if (entry.deadline <= now) due.push(entry);
    // A timer that fired late finds several due: they end in the order of their deadlines.
    due.sort((a, b) => a.deadline - b.deadline);
    try {
      for (const entry of due) {
        unwatch(entry);
        entry.expire();
      }
    } finally {
      // After the expiries, which may have started waits of their own; a wait left due by an onTimeout
      // that threw is still in the list, and the timer fires again for it at once.
      let next = Number.POSITIVE_INFINITY;
      for (let entry = first; entry; entry = entry.next) if (entry.deadline < next) next = entry.deadline;
      if (next < timerAt) arm(next);
    }
  };

  return {
    within(work, deadline, onTimeout) {
      // A module adapter may answer without a promise: as with `await`, its answer is the value.
      const settled = Promise.resolve(work);
      if (deadline === Number.POSITIVE_INFINITY) return settled;
      return new Promise((resolve, reject) => {
        const entry: Waiting = {
          deadline,
          expire() {
            try {
              onTimeout();
            } finally {
              resolve(timedOut);
            }
          },
          previous: undefined,
          next: undefined,
        };
        watch(entry);
        settled.then(
          (value) => {
            unwatch(entry);
            resolve(value);
          },
          (error: unknown) => {
            unwatch(entry);
            reject(error);
          },
        );
      });
    },
  };
}

/** What `withinDeadline` gives when the deadline comes before the work settles. */
export const timedOut: unique symbol = Symbol("timed out");

interface Waiting {
  deadline: number;
  expire(): void;
}

// Every wait in progress, and one timer for the earliest of their deadlines. A wait makes no timer of its
// own: a Timeout and a promise per service call cost more than an echo call itself, and since most
// deadlines lie beyond the armed one, the timer is only re-armed once it fires or an earlier one comes.
const waiting = new Set<Waiting>();
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Number.POSITIVE_INFINITY;

/**
 * The outcome of `work`, or `timedOut` once `performance.now()` passes `deadline` first (`onTimeout` runs
 * then). While a wait is in progress the timer keeps the process alive, since the work may not.
 */
export function withinDeadline<T>(
  work: T | PromiseLike<T>,
  deadline: number,
  onTimeout: () => void,
): Promise<T | typeof timedOut> {
  // A module adapter may answer without a promise: as with `await`, its answer is the value.
  const settled = Promise.resolve(work);
  if (deadline === Number.POSITIVE_INFINITY) return settled;
  return new Promise((resolve, reject) => {
    const entry: Waiting = {
      deadline,
      expire() {
        onTimeout();
        resolve(timedOut);
      },
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
}

function watch(entry: Waiting): void {
  waiting.add(entry);
  if (entry.deadline < timerAt) arm(entry.deadline);
  else if (waiting.size === 1) timer?.ref();
}

function unwatch(entry: Waiting): void {
  waiting.delete(entry);
  // The timer stays armed for the next wait, but no longer keeps the process alive.
  if (waiting.size === 0) timer?.unref();
}

function arm(at: number): void {
  clearTimeout(timer);
  timerAt = at;
  // Whole milliseconds, rounded up: a timer never fires before the deadline it is armed for.
  timer = setTimeout(expireDue, Math.max(1, Math.ceil(at - performance.now())));
}

function expireDue(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  for (const entry of waiting) {
    if (entry.deadline <= now) {
      waiting.delete(entry);
      entry.expire();
    } else if (entry.deadline < next) next = entry.deadline;
  }
  if (next !== Number.POSITIVE_INFINITY) arm(next);
}

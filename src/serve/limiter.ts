/** Serve's `max_concurrent_runs` (docs/reference.md#serve): how many runs may hold a slot at once. */
export interface Limiter {
  /** A slot's release function (calling it again does nothing), or undefined when every slot is taken: answer 503. */
  tryAcquire(): (() => void) | undefined;
  /** Slots held now. */
  readonly active: number;
  /** Resolves when no slot is held, or after `timeoutMs` at most (graceful shutdown waits so). */
  idle(timeoutMs?: number): Promise<void>;
}

/** A limiter of at most `max` concurrent runs. */
export function createLimiter(max: number): Limiter {
  // The project schema allows only whole numbers from 1: anything else is a bug of the caller.
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`a limiter needs at least one slot, not ${max}`);
  let active = 0;
  let waiting: Array<() => void> = [];

  return {
    get active() {
      return active;
    },

    tryAcquire() {
      if (active >= max) return undefined;
      active += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        active -= 1;
        if (active > 0) return;
        for (const resolve of waiting) resolve();
        waiting = [];
      };
    },

    idle(timeoutMs) {
      if (active === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        // Cleared once idle: a pending timer would keep the process alive after a stop.
        const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

import { decodeTime, monotonicFactory } from "ulid";
import { createRandomPool } from "../random-pool.js";

const maxTime = 2 ** 48 - 1;
// 48 bits of time fill 10 characters of 5 bits with 2 to spare, so the first character is at most 7;
// Crockford's base32 has no I, L, O or U, so an id read aloud or retyped stays the same id.
const runIdPattern = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/**
 * ulid's own source of randomness asks the system for one byte per character (16 calls an id); this one
 * takes them from a pool, each as a fraction in [0, 1) as ulid wants.
 */
export function pooledRandom(size = 4096): () => number {
  const pool = createRandomPool(size);
  return () => pool.byte() / 256;
}

// One factory per process: the same millisecond, or a clock that stepped back, continues from the
// last id instead of a fresh random part, so ids sort in creation order.
const nextUlid = monotonicFactory(pooledRandom());

/** A new run id: a ULID (millisecond time, then randomness), monotonic within the process so ids sort in creation order. */
export function createRunId(now: number = Date.now()): string {
  // ulid reads a time of 0 as "now" and throws its own error type; a run id's time is checked here.
  if (!Number.isInteger(now) || now < 1 || now > maxTime) {
    throw new RangeError(`a run id's time must be a whole millisecond from 1 to ${maxTime}, not ${now}`);
  }
  return nextUlid(now);
}

/** Whether a text has exactly the shape of a run id; every file path built from an id is guarded by it. */
export function isRunId(text: string): boolean {
  return runIdPattern.test(text);
}

/** The millisecond time a run id was created at, or NaN for a text that is not a run id (as `Date.parse`). */
export function runIdTime(id: string): number {
  return isRunId(id) ? decodeTime(id) : Number.NaN;
}

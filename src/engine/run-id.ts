import { randomFillSync } from "node:crypto";

/** Crockford's base32: no I, L, O or U, so an id read aloud or retyped stays the same id. */
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const timeLength = 10;
const randomLength = 16;
const maxTime = 2 ** 48 - 1;
// 48 bits of time fill 10 characters of 5 bits with 2 to spare, so the first character is at most 7.
const runIdPattern = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

let lastTime = -1;
let lastTimeText = "";
const lastRandom: number[] = new Array(randomLength).fill(0);

// Random bytes drawn 4 KiB at a time: one system call per 256 ids instead of one per id.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

/** A new run id: a ULID (millisecond time, then randomness), monotonic within the process so ids sort in creation order. */
export function createRunId(now: number = Date.now()): string {
  if (!Number.isInteger(now) || now < 0 || now > maxTime) {
    throw new RangeError(`a run id's time must be a whole millisecond from 0 to ${maxTime}, not ${now}`);
  }
  // The same millisecond, or a clock that stepped back, continues from the last id instead of a
  // fresh random part, so the new id still sorts after it.
  if (now <= lastTime && increment(lastRandom)) {
    return lastTimeText + encodeDigits(lastRandom);
  }
  lastTime = Math.max(now, lastTime + 1);
  if (lastTime > maxTime)
    throw new RangeError("run ids have run out of time: the clock is past the year 10889");
  drawRandomDigits(lastRandom);
  lastTimeText = encodeTime(lastTime);
  return lastTimeText + encodeDigits(lastRandom);
}

/** Whether a text has exactly the shape of a run id; every file path built from an id is guarded by it. */
export function isRunId(text: string): boolean {
  return runIdPattern.test(text);
}

/** The millisecond time a run id was created at, or NaN for a text that is not a run id (as `Date.parse`). */
export function runIdTime(id: string): number {
  if (!isRunId(id)) return Number.NaN;
  let time = 0;
  for (const char of id.slice(0, timeLength)) time = time * 32 + alphabet.indexOf(char);
  return time;
}

/** Fills `digits` with fresh random base-32 digits from the pool, refilling it when it runs out. */
function drawRandomDigits(digits: number[]): void {
  if (poolOffset + digits.length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // 256 is a multiple of 32, so each byte's low five bits are a uniform digit.
  for (let i = 0; i < digits.length; i++) digits[i] = (pool[poolOffset + i] as number) & 31;
  poolOffset += digits.length;
}

function encodeTime(time: number): string {
  let text = "";
  for (let rest = time, i = 0; i < timeLength; i++, rest = Math.floor(rest / 32)) {
    text = alphabet.charAt(rest % 32) + text;
  }
  return text;
}

function encodeDigits(digits: readonly number[]): string {
  let text = "";
  for (const digit of digits) text += alphabet.charAt(digit);
  return text;
}

/** Adds one to the base-32 digits in place; false when they were all at the top (80 bits used up). */
function increment(digits: number[]): boolean {
  for (let i = digits.length - 1; i >= 0; i--) {
    const next = (digits[i] ?? 0) + 1;
    if (next < 32) {
      digits[i] = next;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}

import { randomFillSync } from "node:crypto";

/**
 * Random bytes handed out from a buffer the system fills a few KiB at a time: asking the system for a
 * handful of bytes (an id's characters, a seal's IV) costs more than the work those bytes are for.
 */
export interface RandomPool {
  /** One random byte. */
  byte(): number;
  /** `count` random bytes of their own (no other caller gets them), `count` at most the pool's size. */
  bytes(count: number): Uint8Array;
}

export function createRandomPool(size = 4096): RandomPool {
  const pool = new Uint8Array(size);
  let next = size;
  const reserve = (count: number) => {
    if (next + count > size) {
      randomFillSync(pool);
      next = 0;
    }
    const at = next;
    next += count;
    return at;
  };
  return {
    byte: () => pool[reserve(1)] ?? 0,
    bytes: (count) => {
      const at = reserve(count);
      return pool.slice(at, at + count);
    },
  };
}

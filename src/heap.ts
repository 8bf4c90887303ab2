import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * The bytes this thread's JavaScript holds: its heap, garbage not yet collected included, and what lives
 * outside it (array buffers, CPython's WebAssembly memory). The process's resident size is every thread's,
 * so it cannot say.
 */
export function heapBytes(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}

// The thread's `gc`, fetched on first use: one per thread, since a function of one isolate is of no use in
// another, and each module instance is a thread's own.
const fetched: { gc?: () => void } = {};

/**
 * A full collection of this thread's heap, which gives what it freed back to the system: V8 collects only
 * when it must allocate, so what a run left stays resident on a thread that then idles. Its `gc` comes from
 * a context made while `--expose-gc` is on: bass's launcher sets that flag before any thread starts, and
 * without it (a library user) it is set for one context and set back. The cells' realm puts its own
 * `gc` out of reach (see createCellRealm).
 */
export function collectGarbage(): void {
  fetched.gc ??= fetchGc();
  fetched.gc();
  // V8 counts the array buffers a collection freed only at the next one: heapBytes() is then right.
  fetched.gc();
}

function fetchGc(): () => void {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === "function") return own as () => void;
  // bass's launcher sets the flag before any thread starts: a new context has gc then, and no flag changes.
  const made = runInNewContext("typeof gc === 'function' ? gc : undefined");
  if (typeof made === "function") return made as () => void;
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as () => void;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

/** What a thread that runs integrations may hold above its last collection after a run before it collects. */
export const heapGrowthToCollect = 64 * 2 ** 20;

/**
 * What a thread calls after each run: a full collection once it holds `growthBytes` more than after the
 * last one (or than at the start), so that a run that allocated much gives it back, and the runs of every
 * day, whose garbage V8 collects as it goes, never pay for one. What such a run made is still in use for a
 * while (its answer, its history line on their way): the collection is made again `laterMs` after the
 * last such run.
 */
export function createHeapKeeper(growthBytes: number, laterMs = 1000): () => void {
  let floor = heapBytes();
  let later: ReturnType<typeof setTimeout> | undefined;
  const collect = () => {
    collectGarbage();
    floor = heapBytes();
  };
  return () => {
    const held = heapBytes();
    if (held - floor < growthBytes) {
      floor = Math.min(floor, held);
      return;
    }
    collect();
    // Counted from the last such run: one that ends while another's answer is on its way waits for it too.
    clearTimeout(later);
    later = setTimeout(collect, laterMs).unref();
  };
}

import { isNativeError } from "node:util/types";
import type { CellCall } from "./realm.js";

/**
 * Which cell left a promise rejected that nobody handled: the call of that cell bass waits for fails with
 * it, and the process goes on. The host's `unhandledRejection` handler asks `note`.
 */
export interface CellRejections {
  /** A call of the cell compiled as `filename` whose promise bass waits for; the return ends the wait. */
  watch(filename: string, call: CellCall): () => void;
  /** What a promise the call started was rejected with, nobody handling it, if anything. */
  leftBy(call: CellCall): { reason: unknown } | undefined;
  /**
   * Takes note of a rejection nobody handled, if a cell's promise it is (of the cells' realm, not bass's).
   * Where two calls of the cell were settling at once (two runs of one integration), neither is blamed:
   * the stack names the cell, not the call. Says whether it was a cell's.
   */
  note(reason: unknown, promise: Promise<unknown>): boolean;
}

export function createCellRejections(): CellRejections {
  const settling = new Map<string, Set<CellCall>>();
  const left = new WeakMap<CellCall, unknown>();
  return {
    watch(filename, call) {
      const calls = settling.get(filename) ?? new Set<CellCall>();
      settling.set(filename, calls.add(call));
      return () => {
        calls.delete(call);
        if (calls.size === 0) settling.delete(filename);
      };
    },
    leftBy: (call) => (left.has(call) ? { reason: left.get(call) } : undefined),
    note(reason, promise) {
      if (promise instanceof Promise) return false;
      const file = isNativeError(reason) ? /bass-cell-\d+/.exec(reason.stack ?? "")?.[0] : undefined;
      const calls = file === undefined ? undefined : settling.get(file);
      if (calls?.size === 1) for (const call of calls) left.set(call, reason);
      return true;
    },
  };
}

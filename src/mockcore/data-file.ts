import { readFile } from "node:fs/promises";
import { BassError, isBassError } from "../errors.js";
import { removeLeftoverTemps } from "../state/tighten.js";
import { systemReason } from "../system-error.js";
import { writeFileAtomic } from "../write-atomic.js";
import { createDemoLedger } from "./demo-data.js";
import type { Ledger } from "./ledger.js";
import { deserializeLedger, serializeLedger } from "./ledger-file.js";

/** Keeps the data file up to date with the ledger. */
export interface DataFileSaver {
  /** Resolves once the ledger as it is now is on disk. */
  save(): Promise<void>;
  /** Resolves once every write started so far has ended. */
  flush(): Promise<void>;
}

/** The ledger in `file`, or the demo data (`fresh`) when there is no such file yet. */
export async function loadLedger(
  file: string,
  clock: () => Date,
): Promise<{ ledger: Ledger; fresh: boolean }> {
  // The one process that serves the file: what writes killed under an earlier one left goes.
  await removeLeftoverTemps(file);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ledger: createDemoLedger(clock), fresh: true };
    throw new BassError(
      "FILE_UNREADABLE",
      `cannot read the mock core's data file ${file}: ${systemReason(error)}`,
    );
  }
  try {
    return { ledger: deserializeLedger(text, { clock }), fresh: false };
  } catch (error) {
    if (!isBassError(error)) throw error;
    throw new BassError("FILE_UNREADABLE", `${file}: ${error.message}`);
  }
}

/**
 * Writes the ledger to `file`, one write at a time. A change made while a write runs queues one more
 * write, which every change up to its start shares; `save` resolves once the change is on disk.
 */
export function createDataFileSaver(file: string, ledger: Ledger): DataFileSaver {
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return {
    save() {
      if (queued) return queued;
      const write = chain.then(() => {
        queued = undefined;
        return writeFileAtomic(file, serializeLedger(ledger), 0o600);
      });
      queued = write;
      chain = write.catch(() => {});
      return write;
    },
    flush: () => chain,
  };
}

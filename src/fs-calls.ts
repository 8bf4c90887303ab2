import { close, fsync, open, rename, unlink, writeFile } from "node:fs";
import { promisify } from "node:util";

// The callback API, promisified: serve writes for every request, and FileHandle objects cost more than the writes.
export const openFile = promisify(open);
/** Writes all of `data` to an open file (text as UTF-8). */
export const writeData = promisify(writeFile) as (fd: number, data: string | Uint8Array) => Promise<void>;
export const syncFile = promisify(fsync);
export const closeFile = promisify(close);
export const renameFile = promisify(rename);
export const unlinkFile = promisify(unlink);

/** Removes a file; one that is already gone is fine. */
export async function removeFile(path: string): Promise<void> {
  await unlinkFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

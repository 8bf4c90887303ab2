import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { threadId } from "node:worker_threads";
import { closeFile, openFile, renameFile, syncFile, unlinkFile, writeData } from "./fs-calls.js";

let nextTemp = 0;

/** The temp name `writeFileAtomic` writes `path` under: unique per process and thread (docs/architecture.md#what-bass-keeps-on-disk). */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}-${threadId}-${nextTemp++}.tmp`;
}

/**
 * Writes `text` to a temp file beside `path` (`<path>.<pid>-<thread>-<n>.tmp`) and renames it over `path`:
 * the file is whole or absent, also after `kill -9`, never half-written (docs/architecture.md#what-bass-keeps-on-disk). `mode` is the new
 * file's (0600 for bass's own state), before the umask. A folder that is not there yet is made, private
 * (0700) for a private file; only a missing folder costs the extra call.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o666): Promise<void> {
  const temp = tempPathFor(path);
  const fd = await openFile(temp, "wx", mode).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    await mkdir(dirname(path), { recursive: true, ...((mode & 0o077) === 0 ? { mode: 0o700 } : {}) });
    return openFile(temp, "wx", mode);
  });
  try {
    await writeData(fd, text);
    // Synced before the rename, so that the file survives a power cut too, not only `kill -9`.
    await syncFile(fd);
    await closeFile(fd);
    await renameFile(temp, path);
  } catch (error) {
    await closeFile(fd).catch(() => {});
    await unlinkFile(temp).catch(() => {});
    throw error;
  }
}

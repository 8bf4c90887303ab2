import { closeFile, openFile, renameFile, syncFile, unlinkFile, writeData } from "./fs-calls.js";

let nextTemp = 0;

export interface WriteFileAtomicOptions {
  /**
   * Sync the file to disk before the rename (default true), so that it survives a power cut too. The rename
   * alone already makes it whole or absent after `kill -9`: the operating system keeps what was written.
   */
  durable?: boolean;
}

/**
 * Writes `text` to a temp file beside `path` (`<path>.<pid>-<n>.tmp`) and renames it over `path`: the file
 * is whole or absent, also after `kill -9`, never half-written (SPEC §12).
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const temp = `${path}.${process.pid}-${nextTemp++}.tmp`;
  const fd = await openFile(temp, "wx");
  try {
    await writeData(fd, text);
    if (options.durable !== false) await syncFile(fd);
    await closeFile(fd);
    await renameFile(temp, path);
  } catch (error) {
    await closeFile(fd).catch(() => {});
    await unlinkFile(temp).catch(() => {});
    throw error;
  }
}

import { closeFile, openFile, renameFile, syncFile, unlinkFile, writeData } from "./fs-calls.js";

let nextTemp = 0;

/**
 * Writes `text` to a temp file beside `path` (`<path>.<pid>-<n>.tmp`) and renames it over `path`: the file
 * is whole or absent, also after `kill -9`, never half-written (SPEC §12).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}-${nextTemp++}.tmp`;
  const fd = await openFile(temp, "wx");
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

import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";

/**
 * Writes `text` to a temp file beside `path` (`<path>.<hex>.tmp`), syncs it to disk and renames it over
 * `path`: the file is whole or absent, also after `kill -9`, never half-written (SPEC §12).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx");
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
}

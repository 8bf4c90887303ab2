import type { Dirent } from "node:fs";
import { chmod, readdir, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The temp name of an atomic write: `<file>.<pid>-<thread>-<n or hex>.tmp`; the pid is its writer's. */
const tempName = /\.(\d+)-\d+-[0-9a-f]+\.tmp$/;

/**
 * Makes bass's state under `dir` (a project's `.bass/`) private, as bass now creates it (docs/architecture.md#what-bass-keeps-on-disk):
 * folders 0700, files 0600, tightened where an older bass left them open. Temp files of atomic writes
 * whose process is gone are removed: a `kill -9` in the middle of a write leaves one behind for good.
 * A folder that is not there is fine; a file that cannot be changed is left as it is.
 */
export async function tightenStateDir(dir: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  await restrict(dir, 0o700);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await tightenStateDir(path);
    else if (entry.isFile() && !(await removeIfLeftover(path))) await restrict(path, 0o600);
  }
}

/** Removes the temp files a gone process left beside `file` (a mock core data file outside `.bass/`). */
export async function removeLeftoverTemps(file: string): Promise<void> {
  const prefix = `${basename(file)}.`;
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(prefix)) await removeIfLeftover(join(dirname(file), name));
  }
}

async function removeIfLeftover(path: string): Promise<boolean> {
  const pid = Number(tempName.exec(path)?.[1]);
  if (!pid || isAlive(pid)) return false;
  await unlink(path).catch(() => {});
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it is there, as another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function restrict(path: string, mode: number): Promise<void> {
  const current = await stat(path).then(
    (stats) => stats.mode & 0o777,
    () => undefined,
  );
  if (current === undefined || (current & ~mode) === 0) return;
  await chmod(path, current & mode).catch(() => {});
}

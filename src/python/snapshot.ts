import { existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { userCacheDir } from "../cache-dir.js";

// dist/python: beside this file in tsc's build, one folder over from the CLI bundle; run from the
// sources (tests), the build's: `npm test` builds it first.
const makerFile = new URL(
  import.meta.url.endsWith(".ts") ? "../../dist/python/make-snapshot.js" : "../python/make-snapshot.js",
  import.meta.url,
);

/** How long a thread waits for another that makes the snapshot, and after which a maker is taken as dead. */
const makerPatienceMs = 120_000;
const lookAgainMs = 100;

/** Where this user keeps Python's start-up snapshot for Pyodide `version` (see userCacheDir). */
export function snapshotPath(version: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(userCacheDir(env), `python-${version}.snapshot`);
}

/**
 * The user's snapshot of a loaded Pyodide, which loads faster than Pyodide itself: made on first use (once
 * per user and Pyodide version, saying so on stderr) by a worker thread, while any other thread that needs
 * it waits. Undefined where it cannot be made (a cache folder bass may not write): Pyodide then loads
 * without it.
 */
export async function userSnapshot(version: string): Promise<Uint8Array | undefined> {
  const file = snapshotPath(version);
  if (existsSync(file)) return readFileSync(file);
  try {
    mkdirSync(join(file, ".."), { recursive: true });
    await makeOnce(file);
    return readFileSync(file);
  } catch (error) {
    process.stderr.write(`bass: Python loads without its start-up snapshot (${String(error)})\n`);
    return undefined;
  }
}

/** Makes `file` unless another thread or process is making it: then waits for that one. */
async function makeOnce(file: string): Promise<void> {
  const lock = `${file}.lock`;
  for (const started = Date.now(); Date.now() - started < makerPatienceMs; ) {
    if (existsSync(file)) return;
    if (takeLock(lock)) {
      try {
        if (!existsSync(file)) await make(file);
      } finally {
        rmSync(lock, { force: true });
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, lookAgainMs));
  }
  throw new Error(`another bass has been making ${file} for ${makerPatienceMs / 1000} s`);
}

/** Takes the lock file, or one a maker left behind longer ago than it could have been working. */
function takeLock(lock: string): boolean {
  try {
    openSync(lock, "wx");
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    if (since === undefined || Date.now() - since <= makerPatienceMs) return false;
    rmSync(lock, { force: true });
    return takeLock(lock);
  }
}

function make(file: string): Promise<void> {
  process.stderr.write(`bass: preparing Python for its first use by this user, once (${file})\n`);
  const worker = new Worker(makerFile, {
    workerData: { file },
    execArgv: [],
  });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`making the snapshot ended with code ${code}`)),
    );
  });
}

import type { BigIntStats } from "node:fs";
import { mkdir, open, stat } from "node:fs/promises";
import { connect } from "node:net";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import { BassError } from "../errors.js";
import { closeFile, openFile, removeFile, writeData } from "../fs-calls.js";
import { type Mockcore, type StartMockcoreOptions, startMockcore } from "./server.js";

/** A mock core on a data file: this process's own, or the one another process runs on the same file. */
export interface SharedMockcore {
  url: string;
  /** The process that runs the core, when it is not this one. */
  ownerPid: number | undefined;
  close(): Promise<void>;
}

/** What a lock file says: who runs the core on its data file, where, and whether it runs until stopped. */
interface LockOwner {
  pid: number;
  url: string;
  lasting: boolean;
}

export interface SharedMockcoreOptions extends StartMockcoreOptions {
  dataFile: string;
  /**
   * Whether this process runs until it is stopped (serve, mockcore), so that others may use its core; a
   * short one (run, test) keeps the file to itself and the next process waits for it to end.
   */
  lasting: boolean;
}

/**
 * A lock with no owner written yet, or whose process runs but whose core does not answer, is given this
 * long: its owner may be starting or closing. After that it is a crash's leftover, or its pid was reused.
 */
const graceMs = 2000;
const connectTimeoutMs = 500;

/** How long a process waits for a short one to let go of the data file. */
const waitLimitMs = 60_000;

/** The cores this process runs, by data file, with how many users each has. */
const running = new Map<string, { core: Promise<Mockcore>; users: number }>();

/**
 * The mock core on `dataFile`, one per data file across processes, so that no process writes over another's
 * changes. The process that starts it holds `<dataFile>.lock` (its pid, url and whether it lasts) while it
 * runs. Another process sends its requests to a lasting owner's core (a `bass run` while `bass serve` runs),
 * and waits for a short owner to end (two `bass run`s at once take turns). In one process the core is
 * shared and closed when its last user closes it. A lock whose process is gone, or whose core does not
 * answer, is taken over.
 */
export async function startSharedMockcore(options: SharedMockcoreOptions): Promise<SharedMockcore> {
  const { dataFile, lasting, ...coreOptions } = options;
  const own = running.get(dataFile);
  if (own) {
    own.users++;
    return { url: (await own.core).url, ownerPid: undefined, close: () => release(dataFile) };
  }
  const lock = `${dataFile}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  const deadline = Date.now() + waitLimitMs;
  // When the owner's process was first seen running with a core that did not answer.
  let silentSince: number | undefined;
  for (;;) {
    let fd: number;
    try {
      fd = await openFile(lock, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockError(lock, error);
      const found = await readLock(lock);
      // Let go of in the meantime: try again.
      if (!found) continue;
      const { owner } = found;
      const state = owner ? await stateOf(owner) : "unknown";
      if (state === "silent") silentSince ??= Date.now();
      if (owner && state === "serving") {
        if (owner.lasting) return { url: owner.url, ownerPid: owner.pid, close: async () => {} };
        if (Date.now() > deadline) throw busyError(dataFile, owner);
        await sleep(50);
      } else if (state === "silent" && Date.now() - (silentSince ?? 0) < graceMs) {
        // Most likely closing: its core stops listening, then writes its last changes, then lets go.
        await sleep(50);
      } else if (state === "unknown" && Date.now() - found.mtimeMs < graceMs) {
        // Being written: the owner writes its pid and url once its core listens.
        await sleep(20);
      } else {
        // Another process taking it over at the same time: look again in a moment.
        if (!(await removeStaleLock(lock, found.identity))) await sleep(20);
        silentSince = undefined;
      }
      continue;
    }
    // Registered before it starts, so that a second start in this process waits for this one.
    const core = startOwned({ ...coreOptions, dataFile }, { pid: process.pid, lasting }, fd, lock);
    running.set(dataFile, { core, users: 1 });
    try {
      return { url: (await core).url, ownerPid: undefined, close: () => release(dataFile) };
    } catch (error) {
      running.delete(dataFile);
      throw error;
    }
  }
}

/** Starts the core and writes its owner into the lock, or gives the lock up when the core cannot start. */
async function startOwned(
  options: StartMockcoreOptions,
  owner: Omit<LockOwner, "url">,
  fd: number,
  lock: string,
): Promise<Mockcore> {
  try {
    const core = await startMockcore(options);
    await writeData(fd, JSON.stringify({ ...owner, url: core.url } satisfies LockOwner));
    await closeFile(fd);
    return {
      ...core,
      async close() {
        await core.close();
        await removeFile(lock);
      },
    };
  } catch (error) {
    await closeFile(fd).catch(() => {});
    await removeFile(lock);
    throw error;
  }
}

async function release(dataFile: string): Promise<void> {
  const entry = running.get(dataFile);
  if (!entry || --entry.users > 0) return;
  running.delete(dataFile);
  await (await entry.core).close();
}

/**
 * What tells one lock file from another at the same path: its inode, its size and when it last changed, to
 * the nanosecond (an inode number alone comes back: ext4 gives a new file the number of one just removed).
 */
export interface LockIdentity {
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
}

/** The lock file as it is now: its owner (if written yet), its identity and when it was last written; undefined once gone. */
async function readLock(
  lock: string,
): Promise<{ owner: LockOwner | undefined; identity: LockIdentity; mtimeMs: number } | undefined> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(lock, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw lockError(lock, error);
  }
  try {
    // One open file for both: the owner read is that of the file a takeover checks.
    const stats = await file.stat({ bigint: true });
    return {
      owner: parseOwner(await file.readFile("utf8")),
      identity: identityOf(stats),
      mtimeMs: Number(stats.mtimeMs),
    };
  } finally {
    await file.close();
  }
}

function identityOf(stats: BigIntStats): LockIdentity {
  return { ino: stats.ino, size: stats.size, ctimeNs: stats.ctimeNs };
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return Number.isInteger(owner.pid) && typeof owner.url === "string"
      ? { pid: owner.pid as number, url: owner.url, lasting: owner.lasting === true }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock judged stale, the file of `identity`, and never another process's newer lock: two
 * processes may judge the same lock stale, and the slower one would otherwise remove the lock the faster
 * one has just taken, so that both run a core on the data file. A takeover holds `<lock>.takeover` while
 * it checks the lock and removes it, so no other takeover runs in between; while the stale lock is there,
 * no process can take a new one. Returns false, having removed nothing, while another takeover runs; a
 * `.takeover` older than the grace time was left by a crash and is removed. Exported for its tests.
 */
export async function removeStaleLock(lock: string, identity: LockIdentity): Promise<boolean> {
  const guard = `${lock}.takeover`;
  let fd: number;
  try {
    fd = await openFile(guard, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockError(guard, error);
    const since = await stat(guard).then(
      (stats) => stats.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - since > graceMs) await removeFile(guard);
    return false;
  }
  try {
    const current = await stat(lock, { bigint: true }).catch(() => undefined);
    if (current && isDeepStrictEqual(identityOf(current), identity)) await removeFile(lock);
    return true;
  } finally {
    await closeFile(fd).catch(() => {});
    await removeFile(guard);
  }
}

/** Whether the owner's process has ended, or runs with its core taking connections, or runs without. */
async function stateOf(owner: LockOwner): Promise<"gone" | "serving" | "silent"> {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "gone";
  }
  return (await answers(owner.url)) ? "serving" : "silent";
}

/** Whether something takes connections at `url`'s host and port. */
async function answers(address: string): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port) });
    const done = (serving: boolean) => {
      socket.destroy();
      resolve(serving);
    };
    socket.setTimeout(connectTimeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

function busyError(dataFile: string, owner: LockOwner): BassError {
  return new BassError(
    "FILE_UNREADABLE",
    `the mock core's data file ${dataFile} has been in use by process ${owner.pid} for over ${waitLimitMs / 1000} s; wait for it to end, or give this project its own mockcore.data`,
  );
}

function lockError(lock: string, error: unknown): BassError {
  return new BassError(
    "FILE_UNREADABLE",
    `cannot take the mock core's lock file ${lock}: ${(error as Error).message}`,
  );
}

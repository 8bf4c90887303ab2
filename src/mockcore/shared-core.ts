import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BassError } from "../errors.js";
import { closeFile, removeFile, writeData } from "../fs-calls.js";
import { createLock, judgeLock, type LockOwner, readLock, removeStaleLock } from "./core-lock.js";
import { type Mockcore, type StartMockcoreOptions, startMockcore } from "./server.js";

/** A mock core on a data file: this process's own, or the one another process runs on the same file. */
export interface SharedMockcore {
  url: string;
  /** The process that runs the core, when it is not this one. */
  ownerPid: number | undefined;
  close(): Promise<void>;
}

export interface SharedMockcoreOptions extends StartMockcoreOptions {
  dataFile: string;
  /**
   * Whether this process runs until it is stopped (serve, mockcore), so that others may use its core; a
   * short one (run, test) keeps the file to itself and the next process waits for it to end.
   */
  lasting: boolean;
}

/** How long a process waits for a short one to let go of the data file. */
const waitLimitMs = 60_000;
/** How often a process using another's core looks whether that process is still there. */
const followEveryMs = 250;

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
  await mkdir(dirname(lock), { recursive: true, mode: 0o700 });
  const taken = await waitForLock(lock, dataFile);
  if (typeof taken !== "number") return { url: taken.url, ownerPid: taken.pid, close: async () => {} };
  // Registered before it starts, so that a second start in this process waits for this one.
  const core = startOwned({ ...coreOptions, dataFile }, { pid: process.pid, lasting }, taken, lock);
  running.set(dataFile, { core, users: 1 });
  try {
    return { url: (await core).url, ownerPid: undefined, close: () => release(dataFile) };
  } catch (error) {
    running.delete(dataFile);
    throw error;
  }
}

/** The mock core on a data file, wherever it runs now: `url` changes when this process takes it over. */
export interface FollowedMockcore {
  readonly url: string;
  /** Called with the new address after a takeover, once the core answers there. */
  onMove(listener: (url: string) => void | Promise<void>): void;
  close(): Promise<void>;
}

/**
 * The shared mock core on `dataFile` (startSharedMockcore), followed: while another process runs it, this
 * one looks every 250 ms whether that process is still there, and once it is gone takes the core over (or
 * follows whichever process took it first), so that its calls work again within about half a second
 * (docs/mockcore.md#state-and-faults) instead of failing for good.
 */
export async function followSharedMockcore(options: SharedMockcoreOptions): Promise<FollowedMockcore> {
  let current = await startSharedMockcore(options);
  const listeners: ((url: string) => void | Promise<void>)[] = [];
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A takeover under way: closing waits for it, so that no core or lock outlives the close.
  let takingOver: Promise<void> | undefined;
  const takeOver = async () => {
    const next = await startSharedMockcore(options);
    if (closed) return next.close();
    try {
      for (const listener of listeners) await listener(next.url);
      current = next;
    } catch {
      // The users could not follow: this core goes, and the next look tries again.
      await next.close();
    }
  };
  const watch = () => {
    if (closed || current.ownerPid === undefined) return;
    timer = setTimeout(async () => {
      if (isRunning(current.ownerPid)) return watch();
      takingOver = takeOver().catch(() => {
        // The data file is busy or broken for now: the next look tries again.
      });
      await takingOver;
      takingOver = undefined;
      watch();
    }, followEveryMs);
    // Following keeps no process alive.
    timer.unref();
  };
  watch();
  return {
    get url() {
      return current.url;
    },
    onMove: (listener) => listeners.push(listener),
    async close() {
      closed = true;
      clearTimeout(timer);
      await takingOver;
      await current.close();
    },
  };
}

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock (its open file), or finds a lasting owner whose core to use; waits for a short owner, takes over a stale lock. */
async function waitForLock(lock: string, dataFile: string): Promise<number | LockOwner> {
  const deadline = Date.now() + waitLimitMs;
  const silence: { since?: number | undefined } = {};
  for (;;) {
    const fd = await createLock(lock);
    if (fd !== undefined) return fd;
    const found = await readLock(lock);
    // Let go of in the meantime: try again.
    if (!found) continue;
    const verdict = await judgeLock(found, silence);
    if (verdict.kind === "use") return verdict.owner;
    if (verdict.kind === "busy" && Date.now() > deadline) throw busyError(dataFile, verdict.owner);
    await actOn(verdict, lock, found.identity, silence);
  }
}

/** Waits as a lock's verdict says, or takes over a stale lock; then the lock is looked at again. */
async function actOn(
  verdict: Exclude<Awaited<ReturnType<typeof judgeLock>>, { kind: "use" }>,
  lock: string,
  identity: Parameters<typeof removeStaleLock>[1],
  silence: { since?: number | undefined },
): Promise<void> {
  if (verdict.kind === "busy") return sleep(50);
  if (verdict.kind === "wait") return sleep(verdict.ms);
  // Another process taking it over at the same time: look again in a moment.
  if (!(await removeStaleLock(lock, identity))) await sleep(20);
  silence.since = undefined;
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

function busyError(dataFile: string, owner: LockOwner): BassError {
  return new BassError(
    "FILE_UNREADABLE",
    `the mock core's data file ${dataFile} has been in use by process ${owner.pid} for over ${waitLimitMs / 1000} s; wait for it to end, or give this project its own mockcore.data`,
  );
}

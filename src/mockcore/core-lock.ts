import type { BigIntStats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { connect } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { BassError } from "../errors.js";
import { closeFile, openFile, removeFile } from "../fs-calls.js";

// Our own lock rather than proper-lockfile's: its lock is a bare folder judged stale by an mtime its owner must
// keep touching, while this one names its owner (pid, url: others use a lasting owner's core) and is judged
// by whether that process runs and its core answers, so a busy owner never loses it.

/** What a lock file says: who runs the core on its data file, where, and whether it runs until stopped. */
export interface LockOwner {
  pid: number;
  url: string;
  lasting: boolean;
}

/**
 * A lock with no owner written yet, or whose process runs but whose core does not answer, is given this
 * long: its owner may be starting or closing. After that it is a crash's leftover, or its pid was reused.
 */
const graceMs = 2000;
const connectTimeoutMs = 500;

/** A lock file as it was read: its owner (if written yet), its identity and when it was last written. */
export interface FoundLock {
  owner: LockOwner | undefined;
  identity: LockIdentity;
  mtimeMs: number;
}

/** What to do about a lock another process holds: use its lasting core, wait for it, or take it over. */
export type LockVerdict =
  | { kind: "use"; owner: LockOwner }
  | { kind: "busy"; owner: LockOwner }
  | { kind: "wait"; ms: number }
  | { kind: "stale" };

/** Takes `lock` for this process: the open file to write the owner into, or undefined when another holds it. */
export async function createLock(lock: string): Promise<number | undefined> {
  try {
    return await openFile(lock, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockError(lock, error);
    return undefined;
  }
}

/**
 * Judges a lock found held. `silence.since` is when its owner's process was first seen running with a core
 * that did not answer; the caller keeps it across looks at the same lock.
 */
export async function judgeLock(
  found: FoundLock,
  silence: { since?: number | undefined },
): Promise<LockVerdict> {
  const { owner } = found;
  const state = owner ? await stateOf(owner) : "unknown";
  if (state === "silent") silence.since ??= Date.now();
  if (owner && state === "serving") return { kind: owner.lasting ? "use" : "busy", owner };
  // Most likely closing: its core stops listening, then writes its last changes, then lets go.
  if (state === "silent" && Date.now() - (silence.since ?? 0) < graceMs) return { kind: "wait", ms: 50 };
  // Being written: the owner writes its pid and url once its core listens.
  if (state === "unknown" && Date.now() - found.mtimeMs < graceMs) return { kind: "wait", ms: 20 };
  return { kind: "stale" };
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
export async function readLock(lock: string): Promise<FoundLock | undefined> {
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
 * `.takeover` older than the grace time was left by a crash and is removed.
 */
export async function removeStaleLock(lock: string, identity: LockIdentity): Promise<boolean> {
  const guard = `${lock}.takeover`;
  let fd: number;
  try {
    fd = await openFile(guard, "wx", 0o600);
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

export function lockError(lock: string, error: unknown): BassError {
  return new BassError(
    "FILE_UNREADABLE",
    `cannot take the mock core's lock file ${lock}: ${(error as Error).message}`,
  );
}

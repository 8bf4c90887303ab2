import { createHash } from "node:crypto";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import { isObject } from "../objects.js";
import type { Sealer } from "../state/seal.js";
import { writeFileAtomic } from "../write-atomic.js";

/** A response as the idempotency layer keeps it; `body` is the base64 of its bytes, so any content type replays byte for byte. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The request path as the first answer's log line showed it, masked: a replay's log line shows it too. */
  logPath?: string;
}

export type IdempotencyDecision =
  /** The first request with this key: run it, then `complete` (before answering) or `abandon` (it threw). */
  | { kind: "run"; complete(response: StoredResponse): Promise<void>; abandon(): void }
  /** The same key and request within the TTL: answer the stored response with `Idempotent-Replayed: true`. */
  | { kind: "replay"; response: StoredResponse }
  /** The same key and request while the first still runs: 409. */
  | { kind: "in-progress" }
  /** The same key with another request (body, method or path), also while the first runs: 422. */
  | { kind: "mismatch" }
  /** The key's file is there but cannot be read (warned, naming it): 503, never a run that may repeat the first. */
  | { kind: "unreadable"; file: string };

/**
 * The `Idempotency-Key` layer (docs/behaviour.md#bass-serve). Answered keys are kept on disk, one file per key, so a
 * restart does not forget them, each answer sealed with the project's state key so that a replay is the
 * first answer byte for byte while the file shows none of it; keys still running are kept in memory only:
 * a request cut off by a crash before it was answered was never answered, so after the restart its key
 * runs again.
 */
export interface IdempotencyStore {
  /** Decides what a request with `key` (scoped by the caller as it likes) and `fingerprint` does. */
  begin(key: string, fingerprint: string, now?: number): Promise<IdempotencyDecision>;
  /** Resolves when every completed response is on disk (serve's graceful shutdown). */
  flush(): Promise<void>;
}

export interface IdempotencyStoreOptions {
  dir: string;
  ttlSeconds: number;
  /** Seals each stored answer (the project's state key). */
  sealer: Sealer;
  /** Told of each key's file that cannot be read or opened, naming it: its key is answered 503 until it is mended. */
  warn?: (message: string) => void;
  clock?: () => number;
  /** Bytes of stored entries kept in memory, least recently used dropped first (default 16 MiB); the rest is read from disk. */
  cacheBytes?: number;
}

interface Entry {
  fingerprint: string;
  storedAt: number;
  response: StoredResponse;
  /** Length of the entry's file, what it weighs in the cache. */
  size: number;
}

/** A temp file older than this is a leftover of a crash, not a write in progress. */
const staleTempMs = 60_000;
/** Expired files of keys never seen again are swept at most this often (and at most once per TTL). */
const sweepIntervalMs = 3_600_000;
const entryName = /^[0-9a-f]{64}\.json$/;
const tempName = /^[0-9a-f]{64}\.json\.[0-9a-f-]+\.tmp$/;

/** An idempotency store in `dir`: files named by the sha256 of the key, never by the key itself. */
export function createIdempotencyStore(options: IdempotencyStoreOptions): IdempotencyStore {
  const { dir } = options;
  const ttlMs = options.ttlSeconds * 1000;
  const clock = options.clock ?? Date.now;
  const cacheBytes = options.cacheBytes ?? 16 * 1024 * 1024;
  const running = new Map<string, string>(); // key hash → fingerprint
  // An entry larger than the whole cache is not kept (lru-cache refuses it), so it is read from disk.
  const cache = new LRUCache<string, Entry>({ maxSize: cacheBytes, sizeCalculation: (entry) => entry.size });
  const tails = new Map<string, Promise<unknown>>();
  const writes = new Set<Promise<unknown>>();
  let lastSweep = Number.NEGATIVE_INFINITY;
  let sweeping: Promise<void> | undefined;
  // Each file is named once: a client retrying its key would otherwise fill the log.
  const warned = new Set<string>();
  const unreadable = (file: string, why: string): Unreadable => {
    if (!warned.has(file)) {
      warned.add(file);
      options.warn?.(
        `the Idempotency-Key answer ${file} cannot be read (${why}): its key is answered 503 until the file is restored or removed`,
      );
    }
    return { unreadable: file };
  };

  // Everything that reads or writes one key's file runs one at a time, so no decision rests on a stale read.
  const exclusive = <T>(hash: string, task: () => Promise<T>): Promise<T> => {
    const result = (tails.get(hash) ?? Promise.resolve()).then(task);
    const tail = result.catch(() => undefined);
    tails.set(hash, tail);
    void tail.then(() => tails.get(hash) === tail && tails.delete(hash));
    return result;
  };
  const expired = (entry: Entry, now: number) => now - entry.storedAt >= ttlMs;
  const lookup = async (hash: string) =>
    cache.get(hash) ?? (await readEntry(dir, hash, options.sealer, unreadable));
  const remove = async (hash: string) => {
    cache.delete(hash);
    await unlink(join(dir, `${hash}.json`)).catch(() => {});
  };

  const store = async (hash: string, fingerprint: string, response: StoredResponse) => {
    const storedAt = clock();
    const sealed = options.sealer.seal(Buffer.from(JSON.stringify({ fingerprint, response })), hash);
    const text = `${JSON.stringify({ key: hash, stored_at: new Date(storedAt).toISOString(), sealed })}\n`;
    await writeFileAtomic(join(dir, `${hash}.json`), text, 0o600);
    cache.set(hash, {
      fingerprint,
      storedAt,
      response: copyResponse(response),
      size: Buffer.byteLength(text),
    });
    if (!sweeping && storedAt - lastSweep >= Math.min(ttlMs, sweepIntervalMs)) {
      lastSweep = storedAt;
      sweeping = sweep().finally(() => {
        sweeping = undefined;
      });
    }
  };

  // Removes the files of keys that expired and were never asked for again, and temp files a crash left behind.
  const sweep = async () => {
    for (const name of await readdir(dir).catch(() => [])) await sweepFile(name);
  };
  const sweepFile = async (name: string) => {
    const isEntry = entryName.test(name);
    if (!isEntry && !tempName.test(name)) return;
    if (!(await isOlderThan(join(dir, name), isEntry ? ttlMs : staleTempMs))) return;
    if (isEntry) await sweepEntry(name.slice(0, 64));
    else await unlink(join(dir, name)).catch(() => {});
  };
  // A file that is gone already is not older than anything.
  const isOlderThan = (path: string, ms: number) =>
    stat(path).then(
      (stats) => clock() - stats.mtimeMs >= ms,
      () => false,
    );
  const sweepEntry = (hash: string) =>
    exclusive(hash, async () => {
      const entry = await lookup(hash);
      // Under the key's turn, so a response completed meanwhile is read here, never deleted unseen; a file
      // that cannot be read is older than the TTL and has no key that could still replay it.
      if (!entry || "unreadable" in entry || expired(entry, clock())) await remove(hash);
    });

  // A key answered before: its answer again for the same request, a mismatch for another.
  const answered = (hash: string, entry: Entry, fingerprint: string): IdempotencyDecision => {
    cache.set(hash, entry);
    if (entry.fingerprint !== fingerprint) return { kind: "mismatch" };
    return { kind: "replay", response: copyResponse(entry.response) };
  };

  // What a key no request of which runs now does, from its file's entry.
  const decide = async (
    hash: string,
    fingerprint: string,
    entry: Entry | Unreadable | undefined,
    now: number,
  ): Promise<IdempotencyDecision> => {
    if (entry && "unreadable" in entry) return { kind: "unreadable", file: entry.unreadable };
    if (entry && !expired(entry, now)) return answered(hash, entry, fingerprint);
    if (entry) await remove(hash);
    return claim(hash, fingerprint);
  };

  const claim = (hash: string, fingerprint: string): IdempotencyDecision => {
    running.set(hash, fingerprint);
    let settled = false;
    return {
      kind: "run",
      complete(response) {
        if (settled)
          return Promise.reject(new TypeError("this idempotency key was already completed or abandoned"));
        settled = true;
        const write = exclusive(hash, async () => {
          try {
            await store(hash, fingerprint, response);
          } finally {
            // Also when the write failed: the key is free again rather than stuck in progress.
            running.delete(hash);
          }
        });
        writes.add(write);
        void write.catch(() => {}).then(() => writes.delete(write));
        return write;
      },
      abandon() {
        if (settled) return;
        settled = true;
        running.delete(hash);
      },
    };
  };

  return {
    begin(key, fingerprint, now = clock()) {
      const hash = createHash("sha256").update(key).digest("hex");
      return exclusive(hash, async (): Promise<IdempotencyDecision> => {
        const first = running.get(hash);
        if (first !== undefined)
          return first === fingerprint ? { kind: "in-progress" } : { kind: "mismatch" };
        return decide(hash, fingerprint, await lookup(hash), now);
      });
    },

    async flush() {
      await Promise.allSettled([...writes, sweeping]);
    },
  };
}

/** Whether `text` may be an `Idempotency-Key`: 1 to 64 visible ASCII characters. */
export function isIdempotencyKey(text: string): boolean {
  return /^[\x21-\x7e]{1,64}$/.test(text);
}

/** The sha256 (hex) of a request's method, path and body: what makes a repeat "the same request". */
export function requestFingerprint(method: string, path: string, body: Uint8Array): string {
  // A JSON array shows where it ends, so no method, path and body can run into one another.
  return createHash("sha256")
    .update(JSON.stringify([method, path]))
    .update(body)
    .digest("hex");
}

/** A key's file that is there but cannot be read: what its key may have answered is unknown. */
interface Unreadable {
  unreadable: string;
}

/**
 * The entry in a key's file, undefined when there is none. A file that cannot be read, is not JSON, has
 * the wrong shape or does not open with the state key is `unreadable` (told, naming it): the key was
 * answered once, so running it again could do twice what its first request did.
 */
async function readEntry(
  dir: string,
  hash: string,
  sealer: Sealer,
  unreadable: (file: string, why: string) => Unreadable,
): Promise<Entry | Unreadable | undefined> {
  const file = join(dir, `${hash}.json`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // No file, or no folder that could hold one.
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    return unreadable(file, code ?? String(error));
  }
  const value = parseJson(text);
  if (!isObject(value) || value.key !== hash || typeof value.sealed !== "string")
    return unreadable(file, "it is not an idempotency entry of bass's");
  const storedAt = typeof value.stored_at === "string" ? Date.parse(value.stored_at) : Number.NaN;
  if (Number.isNaN(storedAt)) return unreadable(file, "its stored_at is not a time");
  const plain = sealer.open(value.sealed, hash);
  if (!plain)
    return unreadable(
      file,
      "it does not open with this state key: was BASS_STATE_KEY or .bass/state.key changed?",
    );
  const sealed = parseJson(plain.toString("utf8"));
  const response = isObject(sealed) ? storedResponse(sealed.response) : undefined;
  if (!isObject(sealed) || typeof sealed.fingerprint !== "string" || !response)
    return unreadable(file, "its sealed answer has the wrong shape");
  return { fingerprint: sealed.fingerprint, storedAt, response, size: Buffer.byteLength(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A stored response of the right shape, or undefined. */
function storedResponse(response: unknown): StoredResponse | undefined {
  if (!isObject(response) || !isObject(response.headers)) return undefined;
  const { status, headers, body, logPath } = response;
  if (!Number.isInteger(status) || typeof body !== "string") return undefined;
  if (!Object.values(headers).every((header) => typeof header === "string")) return undefined;
  const stored: StoredResponse = {
    status: status as number,
    headers: headers as Record<string, string>,
    body,
  };
  if (typeof logPath === "string") stored.logPath = logPath;
  return stored;
}

/** A copy a caller may change without changing what the store keeps. */
function copyResponse(response: StoredResponse): StoredResponse {
  return { ...response, headers: { ...response.headers } };
}

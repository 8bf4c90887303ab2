import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import type { Env } from "../definition/load.js";
import type { VaultConfig } from "../definition/types.js";
import type { HeldVault, RunMasks, VaultHandle, VaultStore } from "../engine/vault.js";
import { BassError } from "../errors.js";
import { setOwn } from "../objects.js";
import type { Sealer } from "../state/seal.js";
import { openStateKey } from "../state/state-key.js";
import type { Project } from "./project.js";

/** A vault as a file holds it: items as JSON, secrets sealed with the state key. */
interface VaultFile {
  items: Record<string, unknown>;
  secrets: Record<string, string>;
}

export interface VaultStoreOptions {
  /** The project's folder: vaults are kept in `.bass/vaults/`. */
  dir: string;
  /** The project file's `vaults:`, whose seeds are written for keys a vault does not hold yet. */
  seeds: Readonly<Record<string, VaultConfig>>;
  /** The state key's sealer, opened when a vault first needs it. */
  sealer(): Promise<Sealer>;
}

/**
 * The vaults of a project, kept under its folder (or `project.dir`'s, for a copy), their secrets sealed with
 * the state key of `keyDir` (`BASS_STATE_KEY` of `env` wins).
 */
export function projectVaults(
  project: Pick<Project, "dir" | "config">,
  env: Env,
  keyDir = project.dir,
): VaultStore {
  let sealer: Promise<Sealer> | undefined;
  return createVaultStore({
    dir: project.dir,
    seeds: project.config.vaults ?? {},
    sealer: () => (sealer ??= openStateKey(keyDir, env)),
  });
}

/** How often a run waiting for a vault looks again. */
const pollMs = 5;

export function createVaultStore(options: VaultStoreOptions): VaultStore {
  const folder = join(options.dir, ".bass", "vaults");
  const fileOf = (name: string) => join(folder, `${checkedName(name)}.json`);

  let opened: Sealer | undefined;
  const sealer = async () => {
    opened ??= await options.sealer();
    return opened;
  };
  // Only the store's own calls reach here after ready() or an await of sealer().
  const sealerNow = () => {
    if (!opened) throw new Error("the vault store is not ready: await ready() first");
    return opened;
  };

  /** The vault's file, with the seeds of keys it does not hold yet written in. */
  const load = (name: string, write = true): VaultFile => {
    const path = fileOf(name);
    const stored: VaultFile = existsSync(path)
      ? (JSON.parse(readFileSync(path, "utf8")) as VaultFile)
      : { items: {}, secrets: {} };
    const seeded = seedInto(stored, name);
    if (write && (seeded || !existsSync(path))) save(path, stored);
    return stored;
  };

  /** Writes into `stored` the seeds of vault `name` whose keys it does not hold yet; true when there were any. */
  const seedInto = (stored: VaultFile, name: string): boolean => {
    const seed = Object.hasOwn(options.seeds, name) ? options.seeds[name] : undefined;
    const missing = <T>(entries: [string, T][], held: object) =>
      entries.filter(([key]) => !Object.hasOwn(held, key));
    const items = missing(Object.entries(seed?.items ?? {}), stored.items);
    const secrets = missing(Object.entries(seed?.secrets ?? {}), stored.secrets);
    for (const [key, value] of items) setOwn(stored.items, key, value);
    for (const [key, value] of secrets)
      setOwn(stored.secrets, key, sealerNow().seal(Buffer.from(String(value)), secretContext(name, key)));
    return items.length + secrets.length > 0;
  };

  /** The vault, held with `lock`: its handle, and a release that lets go of both once. */
  const hold = (name: string, lock: { release(): void }, masks: RunMasks): HeldVault => {
    try {
      const stored = load(name);
      const handle = vaultHandle(name, stored, () => save(fileOf(name), stored), sealerNow(), masks);
      let released = false;
      return {
        vault: handle.vault,
        release() {
          if (released) return;
          released = true;
          handle.close();
          lock.release();
        },
      };
    } catch (error) {
      lock.release();
      throw error;
    }
  };

  return {
    async open(name, deadline, masks) {
      // Tried at once, before the state key is read: runs take the vault in the order they ask for it.
      const lock = await acquire(folder, checkedName(name), deadline);
      try {
        await sealer();
      } catch (error) {
        lock.release();
        throw error;
      }
      return hold(name, lock, masks);
    },
    openNow(name, deadline, masks) {
      return hold(name, acquireNow(folder, checkedName(name), deadline), masks);
    },
    async ready() {
      await sealer();
    },
    async peek(name) {
      // The state key only where a secret's seed must be sealed: listing a vault makes no key.
      const seed = Object.hasOwn(options.seeds, name) ? options.seeds[name] : undefined;
      if (Object.keys(seed?.secrets ?? {}).length) await sealer();
      // Read only: a vault a run holds is written by that run alone.
      const stored = load(name, false);
      return { items: stored.items, secretKeys: Object.keys(stored.secrets) };
    },
  };
}

/** A vault name is part of a file name: letters, digits, `_`, `-` and `.`, and not only dots. */
function checkedName(name: string): string {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name) || /^\.+$/.test(name))
    throw new BassError("USAGE", `${JSON.stringify(name)} is not a vault name (letters, digits, _ - .)`);
  return name;
}

/** A sealed secret opens only as the secret of its own vault and key. */
function secretContext(vault: string, key: string): string {
  return `vault\u0000${vault}\u0000${key}`;
}

/** Written whole, then moved in place, private to the user: a crash leaves the old file or the new. */
function save(path: string, stored: VaultFile): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}-${threadId}.tmp`;
  writeFileSync(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** The operations of a held vault; after `close` (its cell ended) each one says so. */
function vaultHandle(name: string, stored: VaultFile, write: () => void, sealer: Sealer, masks: RunMasks) {
  let open = true;
  const key = (given: unknown) => {
    if (!open) throw new Error(`vault ${name} was let go when the cell that opened it ended: open it again`);
    if (typeof given !== "string" || given === "")
      throw new TypeError(`vault ${name}: a key is a non-empty string`);
    return given;
  };
  const has = (kind: keyof VaultFile, at: string) => Object.hasOwn(stored[kind], at);
  const must = (kind: keyof VaultFile, at: string, present: boolean, operation: string) => {
    if (has(kind, at) !== present)
      throw new Error(
        `vault ${name}: ${operation} ${present ? "needs" : "refuses"} a key it ${present ? "does not hold" : "holds"}: ${JSON.stringify(at)}`,
      );
  };
  const json = (value: unknown) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
  const setItem = (at: string, value: unknown) => {
    const kept = json(value);
    // An item is kept in clear, and `bass vault get` prints it: a value the run masks belongs in a secret.
    if (masks.holds(JSON.stringify(kept)))
      throw new Error(
        `vault ${name}: item ${JSON.stringify(at)} would hold a value the run masks; keep it with upsert_secret`,
      );
    setOwn(stored.items, at, kept);
    write();
  };
  const setSecret = (at: string, value: unknown) => {
    const text = String(value);
    masks.add(text);
    setOwn(stored.secrets, at, sealer.seal(Buffer.from(text), secretContext(name, at)));
    write();
  };
  const remove = (kind: keyof VaultFile, at: string) => {
    delete stored[kind][at];
    write();
  };
  /** insert (refuses a key it holds), update (needs one), upsert and delete, for items or for secrets. */
  const writes = (kind: keyof VaultFile, set: (at: string, value: unknown) => void, suffix: string) => ({
    insert: (given: unknown, value: unknown) => {
      const at = key(given);
      must(kind, at, false, `insert${suffix}`);
      set(at, value);
    },
    update: (given: unknown, value: unknown) => {
      const at = key(given);
      must(kind, at, true, `update${suffix}`);
      set(at, value);
    },
    upsert: (given: unknown, value: unknown) => set(key(given), value),
    delete: (given: unknown) => remove(kind, key(given)),
  });
  const items = writes("items", setItem, "");
  const secrets = writes("secrets", setSecret, "_secret");
  const vault: VaultHandle = {
    get: (given) => {
      const at = key(given);
      return has("items", at) ? json(stored.items[at]) : null;
    },
    ...items,
    get_secret: (given) => {
      const at = key(given);
      if (!has("secrets", at)) return null;
      const opened = sealer.open(stored.secrets[at] as string, secretContext(name, at));
      if (!opened)
        throw new Error(`vault ${name}: secret ${JSON.stringify(at)} does not open with this state key`);
      const text = opened.toString("utf8");
      masks.add(text);
      return text;
    },
    insert_secret: secrets.insert,
    update_secret: secrets.update,
    upsert_secret: secrets.upsert,
    delete_secret: secrets.delete,
  };
  return {
    vault,
    close() {
      open = false;
    },
  };
}

/**
 * Holds vault `name` for this run: a lock file made exclusively, which a run of another thread or process
 * waits on. A lock is stale, and taken over, when the process that made it is gone, or when it is older
 * than any cell holds a vault (a worker thread that ended mid-cell, an unreadable lock).
 */
async function acquire(folder: string, name: string, deadline: number): Promise<{ release(): void }> {
  const locking = lockOf(folder, name, deadline);
  for (;;) {
    const lock = locking.attempt();
    if (lock) return lock;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** As `acquire`, the thread blocked while it waits: a Python cell holds its thread anyway. */
function acquireNow(folder: string, name: string, deadline: number): { release(): void } {
  const locking = lockOf(folder, name, deadline);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const lock = locking.attempt();
    if (lock) return lock;
    Atomics.wait(pause, 0, 0, pollMs);
  }
}

/** One try at vault `name`'s lock file: the lock, or undefined to wait; past `deadline`, vault_busy. */
function lockOf(folder: string, name: string, deadline: number) {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${name}.lock`);
  const mine = `${process.pid} ${threadId} ${performance.now()}\n`;
  return {
    attempt(): { release(): void } | undefined {
      try {
        writeFileSync(path, mine, { flag: "wx", mode: 0o600 });
        return {
          release: () => {
            // Only its own lock: one taken over meanwhile is another run's.
            if (readLock(path) === mine) unlinkSync(path);
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = readLock(path);
      if (held !== undefined && isStale(path, held)) {
        // Taken over only as it was judged: a lock made anew meanwhile is left alone.
        if (readLock(path) === held) rmSync(path, { force: true });
        return this.attempt();
      }
      if (performance.now() + pollMs > deadline)
        throw new BassError("VAULT_BUSY", `vault ${name} is held by another run past this cell's time limit`);
      return undefined;
    },
  };
}

/** No cell holds a vault longer than this: a lock older is one its holder could not let go of. */
const staleAfterMs = 10 * 60_000;

function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The lock's process has ended (killed mid-run), or the lock is older than any cell holds one. */
function isStale(path: string, held: string): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return false;
  }
  if (age > staleAfterMs) return true;
  const pid = Number(held.split(" ", 1)[0]);
  if (!Number.isInteger(pid) || pid <= 0) return age > 2000;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

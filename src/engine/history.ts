import { mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { HistoryConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { writeFileAtomic } from "../write-atomic.js";
import type { Item, RunRecord, RunStatus, RunTrigger } from "./record.js";
import { isRunId } from "./run-id.js";

export interface HistoryStoreOptions {
  dir: string;
  maxRuns: number;
  storePayloads: boolean;
}

export interface HistoryFilter {
  integration?: string;
  status?: RunStatus;
  trigger?: RunTrigger;
  label?: string;
  limit?: number;
}

export interface HistoryStore {
  /** Queues the record for writing and returns at once: history writing stays off the run's own path. */
  write(record: RunRecord): void;
  /** Resolves when every queued record is on disk (bass run awaits it before exiting; serve on shutdown). */
  flush(): Promise<void>;
  /** Newest first. */
  list(filter?: HistoryFilter): Promise<RunRecord[]>;
  read(id: string): Promise<RunRecord | undefined>;
}

const redacted = "*REDACTED*";
/** Writes at the same time: enough to keep up with serve's concurrent runs, few enough for any file limit. */
const parallelWrites = 8;
/** A temp file older than this is a leftover of a crash, not another process's write in progress. */
const staleTempMs = 60_000;
const tempSuffix = ".tmp";
const recordSuffix = ".json";

/** The store options a project file asks for, with the defaults of SPEC §3; `dir` is relative to the project's folder. */
export function resolveHistoryOptions(projectDir: string, config: HistoryConfig = {}): HistoryStoreOptions {
  return {
    dir: resolve(projectDir, config.dir ?? ".bass/history"),
    maxRuns: config.max_runs ?? 1000,
    storePayloads: config.store_payloads ?? true,
  };
}

/** A store of run records, one JSON file per run in `dir`, each written atomically. */
export function createHistoryStore(options: HistoryStoreOptions): HistoryStore {
  const { dir, maxRuns } = options;
  // The newest version of each record that is not on disk yet: queued (in `queue`) or being written.
  const unwritten = new Map<string, RunRecord>();
  // One entry per id, so a queued older version is replaced by the newer one in its place.
  const queue = new Map<string, RunRecord>();
  const writing = new Set<string>();
  let scheduled = false;
  let stored: Promise<string[]> | undefined;
  let failure: BassError | undefined;
  let idle: Array<() => void> = [];

  // Compact: serve writes one record per request, and bass history reads them (`--json` pretty-prints).
  const serialize = (record: RunRecord) =>
    `${JSON.stringify(options.storePayloads ? record : applyRedaction(record))}\n`;

  // Ids on disk, oldest first: listed once, then kept up to date as records are written and pruned.
  const storedIds = () => {
    // A folder that could not be prepared is tried again by the next write.
    stored ??= prepareDir(dir).catch((error: unknown) => {
      stored = undefined;
      throw error;
    });
    return stored;
  };

  const pump = () => {
    scheduled = false;
    for (const [id, record] of queue) {
      if (writing.size >= parallelWrites) break;
      if (writing.has(id)) continue;
      queue.delete(id);
      writing.add(id);
      void store(record).finally(() => {
        writing.delete(id);
        if (!queue.has(id) && unwritten.get(id) === record) unwritten.delete(id);
        pump();
      });
    }
    if (writing.size === 0 && queue.size === 0) {
      for (const resolve of idle) resolve();
      idle = [];
    }
  };

  const store = async (record: RunRecord) => {
    try {
      const ids = await storedIds();
      // Not synced one by one: a record is still whole or absent after kill -9, and serve writes one per request.
      await writeFileAtomic(join(dir, `${record.id}${recordSuffix}`), serialize(record), { durable: false });
      insertSorted(ids, record.id);
      const pruned = ids.splice(0, Math.max(0, ids.length - maxRuns));
      await Promise.all(pruned.map((id) => removeFile(join(dir, `${id}${recordSuffix}`))));
    } catch (error) {
      failure ??= new BassError(
        "HISTORY_UNWRITABLE",
        `cannot keep run ${record.id} in the history folder ${dir}: ${(error as Error).message}`,
      );
    }
  };

  const read = async (id: string) => {
    if (!isRunId(id)) return undefined;
    const pending = unwritten.get(id);
    if (pending) return JSON.parse(serialize(pending)) as RunRecord;
    return readRecord(dir, id);
  };

  return {
    read,

    write(record) {
      // Only the engine writes records, with ids it made: anything else is a bug, not a user's mistake.
      if (!isRunId(record.id)) throw new TypeError(`"${record.id}" is not a run id`);
      unwritten.set(record.id, record);
      queue.set(record.id, record);
      if (!scheduled) {
        scheduled = true;
        // Serializing and opening files waits until the run's own work of this turn is done.
        setImmediate(pump);
      }
    },

    async flush() {
      if (writing.size > 0 || queue.size > 0) await new Promise<void>((resolve) => idle.push(resolve));
      const error = failure;
      failure = undefined;
      if (error) throw error;
    },

    async list(filter = {}) {
      const ids = new Set([...(await listIds(dir)), ...unwritten.keys()]);
      const newestFirst = [...ids].sort().reverse();
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const found: RunRecord[] = [];
      // Read a batch at a time, so a small limit reads few files of a large history.
      for (let start = 0; start < newestFirst.length && found.length < limit; start += parallelWrites) {
        const batch = newestFirst.slice(start, start + parallelWrites);
        const records = await Promise.all(batch.map(read));
        for (const record of records) {
          if (record && found.length < limit && matches(record, filter)) found.push(record);
        }
      }
      return found;
    },
  };
}

/** The record with its INPUT, OUTPUT and REQUEST payloads replaced by `*REDACTED*`; the record itself is left alone. */
function applyRedaction(record: RunRecord): RunRecord {
  return { ...record, items: record.items.map(redactItem) };
}

function redactItem(item: Item): Item {
  switch (item.kind) {
    case "INPUT":
      return { ...item, data: { ...item.data, payload: redacted } };
    case "OUTPUT":
      return { ...item, data: { ...item.data, payload: redacted } };
    case "REQUEST":
      return {
        ...item,
        request: { ...item.request, payload: redacted },
        response: item.response && { ...item.response, payload: redacted },
      };
    default:
      return item;
  }
}

function matches(record: RunRecord, filter: HistoryFilter): boolean {
  return (
    (filter.integration === undefined || record.integration === filter.integration) &&
    (filter.status === undefined || record.status === filter.status) &&
    (filter.trigger === undefined || record.trigger === filter.trigger) &&
    (filter.label === undefined || record.labels.includes(filter.label))
  );
}

/** Creates the folder, removes temp files a crash left behind, and lists the records, oldest first. */
async function prepareDir(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const names = await readdir(dir);
  const now = Date.now();
  await Promise.all(
    names
      .filter((name) => name.endsWith(tempSuffix) && isRunId(name.slice(0, 26)))
      .map(async (name) => {
        const path = join(dir, name);
        const age = now - (await stat(path).catch(() => ({ mtimeMs: now }))).mtimeMs;
        if (age > staleTempMs) await removeFile(path);
      }),
  );
  return idsOf(names).sort();
}

async function listIds(dir: string): Promise<string[]> {
  try {
    return idsOf(await readdir(dir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new BassError(
      "FILE_UNREADABLE",
      `cannot read the history folder ${dir}: ${(error as Error).message}`,
    );
  }
}

function idsOf(names: readonly string[]): string[] {
  return names
    .filter((name) => name.endsWith(recordSuffix))
    .map((name) => name.slice(0, -recordSuffix.length))
    .filter(isRunId);
}

/** A record file, or undefined when it is missing or is not a record (a stray or damaged file must not break a listing). */
async function readRecord(dir: string, id: string): Promise<RunRecord | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, `${id}${recordSuffix}`), "utf8");
  } catch {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value, id) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown, id: string): value is RunRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Partial<RunRecord>;
  return (
    record.id === id &&
    typeof record.integration === "string" &&
    typeof record.status === "string" &&
    Array.isArray(record.labels) &&
    Array.isArray(record.items)
  );
}

async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** Inserts an id into ascending ids unless it is there; new ids are nearly always the newest, so look from the end. */
function insertSorted(ids: string[], id: string): void {
  let at = ids.length;
  while (at > 0 && (ids[at - 1] ?? "") > id) at--;
  if (ids[at - 1] !== id) ids.splice(at, 0, id);
}

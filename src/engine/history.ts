import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { HistoryConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { closeFile, openFile, removeFile, renameFile, writeData } from "../fs-calls.js";
import {
  countLines,
  type HistoryFile,
  listHistoryFiles,
  openedAt,
  readHistoryFile,
  segmentName,
} from "./history-files.js";
import type { Item, RunRecord, RunStatus, RunTrigger } from "./record.js";
import { createRunId, isRunId, runIdTime } from "./run-id.js";
import { scrubError } from "./scrub-error.js";

export interface HistoryStoreOptions {
  dir: string;
  maxRuns: number;
  storePayloads: boolean;
  /** Masked in the store's error messages: the folder's path may come from the environment (SPEC §3). */
  secrets?: readonly string[];
}

export interface HistoryFilter {
  integration?: string;
  status?: RunStatus;
  trigger?: RunTrigger;
  label?: string;
  limit?: number;
}

export interface HistoryStore {
  /** Queues the record, as it is now, for writing and returns at once: history writing stays off the run's own path. */
  write(record: RunRecord): void;
  /** Resolves when every queued record is on disk (bass run awaits it before exiting; serve on shutdown). */
  flush(): Promise<void>;
  /** Newest first. */
  list(filter?: HistoryFilter): Promise<RunRecord[]>;
  read(id: string): Promise<RunRecord | undefined>;
}

const redacted = "*REDACTED*";
/** Records per segment at most: pruning drops whole segments, so this many more than `max_runs` may be kept. */
const maxSegmentLines = 100;
/** A writer opens a new segment once its current one is this old, so a segment older than `abandonedMs` is done with. */
const segmentMaxAgeMs = 60_000;
/** An unsealed segment this old is no longer written to (its writer ended or crashed) and may be pruned. */
const abandonedMs = 10 * 60_000;
/** How long a record may wait in memory for others to share its write; `kill -9` may lose this much. */
const groupCommitMs = 10;
/** Files read at the same time by a listing. */
const parallelReads = 16;

/** The store options a project file asks for, with the defaults of SPEC §3; `dir` is relative to the project's folder. */
export function resolveHistoryOptions(
  projectDir: string,
  config: HistoryConfig = {},
  secrets: readonly string[] = [],
): HistoryStoreOptions {
  const dir = resolve(projectDir, config.dir ?? ".bass/history");
  // Resolving rewrites a path (`./`, a trailing `/`, `//`, `..`), so that a secret in `history.dir` may no
  // longer be found as it was: the folder, and each such secret as a resolved path, are secrets too.
  const named = secrets.filter((secret) => config.dir?.includes(secret));
  return {
    dir,
    maxRuns: config.max_runs ?? 1000,
    storePayloads: config.store_payloads ?? true,
    secrets: named.length
      ? [...secrets, dir, ...named.map((secret) => resolve(projectDir, secret))]
      : secrets,
  };
}

interface OpenSegment {
  id: string;
  fd: number;
  lines: number;
  openedAt: number;
}

/**
 * A store of run records in `dir`, kept as JSON lines in segment files (see history-files.ts). Records
 * wait in a queue and are appended a batch at a time, one write per batch (group commit): serve's many
 * runs cost one system call per 10 ms instead of a file each. A line is whole or absent after
 * `kill -9` for every reader, since readers skip a line that is not whole.
 */
export function createHistoryStore(options: HistoryStoreOptions): HistoryStore {
  const { dir, maxRuns } = options;
  const segmentLines = Math.min(maxSegmentLines, Math.max(1, Math.ceil(maxRuns / 10)));
  // The records not on disk yet, as their lines: one entry per id, so a queued older version is replaced by
  // the newer one in its place. Each drain takes the queue whole and starts a new one: a long-lived Map
  // would keep dropped lines alive (once its table is old, V8 regrows it in the old generation and the
  // dropped table holds what it held), and text kept as lines lets a run's objects die young.
  let queue = new Map<string, string>();
  // The lines being written now: still found by `read` and `list` until they are on disk (or lost).
  let writing = new Map<string, string>();
  // Every file operation runs on this chain, one at a time, in order.
  let chain: Promise<void> = Promise.resolve();
  // The wait before the next write, while records are queued; it keeps the process alive until they are written.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let segment: OpenSegment | undefined;
  // The files on disk with their line counts, oldest first: listed once, then kept up to date.
  let files: Map<string, { file: HistoryFile; lines: number }> | undefined;
  // What went wrong since the last flush: runs whose records were lost (and the first error that lost
  // some), and the first other problem (closing or pruning a segment).
  let lost: { runs: string[]; error: unknown } = { runs: [], error: undefined };
  let failure: { what: string; error: unknown } | undefined;

  const serialize = (record: RunRecord) =>
    JSON.stringify(options.storePayloads ? record : applyRedaction(record));
  const encoder = createLineEncoder();

  const enqueue = (task: () => Promise<void>) => {
    chain = chain.then(task);
    return chain;
  };

  // An error names the folder and quotes the system's message, which names it again.
  const scrubbed = (error: unknown) => scrubError(error, options.secrets ?? []);
  const fail = (error: unknown, what: string) => {
    failure ??= { what, error };
  };

  const knownFiles = async () => {
    if (files) return files;
    await mkdir(dir, { recursive: true });
    const found = new Map<string, { file: HistoryFile; lines: number }>();
    for (const file of await listHistoryFiles(dir)) {
      found.set(file.name, { file, lines: await countLines(dir, file) });
    }
    files = found;
    return found;
  };

  const openSegment = async (): Promise<OpenSegment> => {
    const now = Date.now();
    if (segment && (segment.lines >= segmentLines || now - segment.openedAt > segmentMaxAgeMs)) await seal();
    if (segment) return segment;
    const known = await knownFiles();
    const id = createRunId(now);
    const name = segmentName(id);
    const fd = await openFile(join(dir, name), "ax");
    segment = { id, fd, lines: 0, openedAt: now };
    known.set(name, { file: { name, id, lines: undefined }, lines: 0 });
    return segment;
  };

  /** Closes the open segment and names its line count, so pruning knows it without reading it. */
  const seal = async () => {
    const current = segment;
    if (!current) return;
    segment = undefined;
    const open = segmentName(current.id);
    const sealed = segmentName(current.id, current.lines);
    files?.delete(open);
    try {
      await closeFile(current.fd);
      if (current.lines === 0) {
        await removeFile(join(dir, open));
        return;
      }
      await renameFile(join(dir, open), join(dir, sealed));
      files?.set(sealed, {
        file: { name: sealed, id: current.id, lines: current.lines },
        lines: current.lines,
      });
    } catch (error) {
      fail(error, `cannot close the segment ${open}`);
    }
  };

  /** Drops the oldest files while the rest still hold `maxRuns` records; never a segment someone may still write. */
  const prune = async (known: Map<string, { file: HistoryFile; lines: number }>) => {
    let total = 0;
    for (const { lines } of known.values()) total += lines;
    const now = Date.now();
    for (const [name, { file, lines }] of known) {
      if (total - lines < maxRuns) break;
      const open = file.lines === undefined;
      if (file.id === segment?.id || (open && now - openedAt(file) < abandonedMs)) break;
      known.delete(name);
      total -= lines;
      await removeFile(join(dir, name));
    }
  };

  /**
   * Writes the records queued now, a segment's room at a time; records queued meanwhile wait for their own
   * timer. (Draining until the queue was empty made serve write every 2 ms instead of every 10: each write
   * takes a round trip to a libuv thread, during which a busy server queues more.)
   */
  const drain = async () => {
    const ids = [...queue.keys()];
    const lines = [...queue.values()];
    writing = queue;
    queue = new Map();
    for (let done = 0; done < ids.length; ) {
      let end = ids.length;
      try {
        const current = await openSegment();
        end = Math.min(end, done + segmentLines - current.lines);
        await writeData(current.fd, encoder.encode(lines.slice(done, end)));
        current.lines += end - done;
        const entry = files?.get(segmentName(current.id));
        if (entry) entry.lines = current.lines;
      } catch (error) {
        // The batch is lost, and flush reports it; so is everything left when no segment could be opened.
        // Its segment may end in part of a line: the next batch goes to a new one.
        if (lost.runs.length === 0) lost.error = error;
        lost.runs = lost.runs.concat(ids.slice(done, end));
        if (segment) await seal();
      }
      for (const id of ids.slice(done, end)) writing.delete(id);
      done = end;
    }
    if (files) await prune(files).catch((error: unknown) => fail(error, "cannot prune old runs"));
  };

  const readRecords = async (visit: (record: RunRecord) => void, only?: string) => {
    try {
      await eachRecord(dir, visit, only);
    } catch (error) {
      throw scrubbed(error);
    }
  };

  const read = async (id: string) => {
    if (!isRunId(id)) return undefined;
    const pending = queue.get(id) ?? writing.get(id);
    if (pending) return JSON.parse(pending) as RunRecord;
    let found: RunRecord | undefined;
    await readRecords((record) => {
      if (record.id === id) found = record;
    }, id);
    return found;
  };

  return {
    read,

    write(record) {
      // Only the engine writes records, with ids it made: anything else is a bug, not a user's mistake.
      if (!isRunId(record.id)) throw new TypeError(`"${record.id}" is not a run id`);
      const line = serialize(record);
      queue.set(record.id, line);
      // The runs that end within a few milliseconds share one write: with serve waiting on a system,
      // a turn of the event loop ends a run or two, and a write per turn cost it 5% of its speed.
      timer ??= setTimeout(() => {
        timer = undefined;
        void enqueue(drain);
      }, groupCommitMs);
    },

    async flush() {
      // Written now: the wait would only keep the process 10 ms longer.
      clearTimeout(timer);
      timer = undefined;
      await enqueue(async () => {
        // Also the runs that end meanwhile (an async run serve's stop waited for): none is left queued.
        do await drain();
        while (queue.size > 0);
        await seal();
      });
      const { runs, error } = lost;
      const problem = runs.length
        ? { what: `cannot keep ${runs.length === 1 ? `run ${runs[0]}` : `${runs.length} runs`}`, error }
        : failure;
      lost = { runs: [], error: undefined };
      failure = undefined;
      if (!problem) return;
      const message = `${problem.what} in the history folder ${dir}: ${(problem.error as Error).message} (history.dir of the project file names a folder bass must be able to write)`;
      throw scrubbed(new BassError("HISTORY_UNWRITABLE", message));
    },

    async list(filter = {}) {
      // A drain that ends while the files are read may have written where the reading had already been:
      // what was pending before counts for the runs the files did not give, what is pending after for all.
      const before = new Map([...writing, ...queue]);
      const records = new Map<string, RunRecord>();
      await readRecords((record) => records.set(record.id, record));
      const lines = new Map<string, string>();
      for (const [id, line] of before) if (!records.has(id)) lines.set(id, line);
      for (const pending of [writing, queue]) for (const [id, line] of pending) lines.set(id, line);
      for (const [id, line] of lines) records.set(id, JSON.parse(line) as RunRecord);
      const newestFirst = [...records.keys()].sort().reverse();
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const found: RunRecord[] = [];
      for (const id of newestFirst) {
        if (found.length >= limit) break;
        const record = records.get(id);
        if (record && matches(record, filter)) found.push(record);
      }
      return found;
    },
  };
}

/** Past this many characters a batch is measured exactly instead of given room for 3 bytes each. */
const measureAbove = 1 << 20;
/** The largest buffer an encoder keeps for the next batch. */
const keepBytes = 4 << 20;

/**
 * Encodes batches of lines as UTF-8, each line followed by a newline, into one buffer that it keeps for
 * the next batch (it may be reused once the bytes it returned are written: the store writes one batch at
 * a time). Each line is written straight into the buffer: ten times faster than joining them and encoding
 * the join. A fresh buffer per batch cost serve 1.5 µs a record: one of a few hundred KiB is mapped anew
 * and every page of it faulted in.
 */
function createLineEncoder(): { encode(lines: readonly string[]): Uint8Array } {
  let buffer = Buffer.alloc(0);
  return {
    encode(lines) {
      let chars = lines.length;
      for (const line of lines) chars += line.length;
      // A UTF-16 code unit takes at most 3 bytes of UTF-8.
      let size = chars * 3;
      if (chars > measureAbove) {
        size = lines.length;
        for (const line of lines) size += Buffer.byteLength(line);
      }
      const into = size <= buffer.length ? buffer : Buffer.allocUnsafeSlow(size);
      if (size <= keepBytes) buffer = into;
      let length = 0;
      for (const line of lines) {
        length += into.write(line, length);
        into[length++] = 0x0a;
      }
      return into.subarray(0, length);
    },
  };
}

/** Calls `visit` with every record on disk (or only those of run `only`), file by file oldest first, each file's lines in order. */
async function eachRecord(dir: string, visit: (record: RunRecord) => void, only?: string): Promise<void> {
  // A run's record is written after its id was made, into a segment opened at most a minute before the
  // write: older files cannot hold it, so a look-up (serve's /_bass/runs/{id}, polled) reads few files.
  const earliest = only === undefined ? Number.NEGATIVE_INFINITY : runIdTime(only) - 2 * segmentMaxAgeMs;
  const files = (await listHistoryFiles(dir)).filter((file) => openedAt(file) >= earliest);
  for (let start = 0; start < files.length; start += parallelReads) {
    const batch = files.slice(start, start + parallelReads);
    for (const records of await Promise.all(batch.map((file) => readHistoryFile(dir, file, only)))) {
      for (const record of records) visit(record);
    }
  }
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

import { resolve } from "node:path";
import type { HistoryConfig } from "../definition/types.js";
import { isRunId } from "../engine/run-id.js";
import type { RunRecord } from "../engine/types.js";
import { BassError } from "../errors.js";
import { createBatchWriter } from "./batches.js";
import { cutRecordLine, defaultMaxItemBytes } from "./cut.js";
import { type HistoryFile, readHistoryFile } from "./files.js";
import { createPendingLines } from "./pending.js";
import { type HistoryFilter, listRecords, readRecord } from "./read.js";
import { applyRedaction, historySecrets, maskingErrors } from "./redact.js";
import { createRunFilesFolder, type RunFilesFolder } from "./run-files.js";
import { createSegmentWriter, type HistoryProblem } from "./segments.js";

export type { HistoryFilter } from "./read.js";

export interface HistoryStoreOptions {
  dir: string;
  maxRuns: number;
  storePayloads: boolean;
  /** The most bytes of each payload a record keeps (see cutRecordLine); 256 KiB by default. */
  maxItemBytes?: number | undefined;
  /** Where runs' files are kept (`.bass/files`), as long as their records; none are kept without it. */
  filesDir?: string | undefined;
  /** Masked in the store's error messages: the folder's path may come from the environment (docs/reference.md#history). */
  secrets?: readonly string[];
}

export interface HistoryStore {
  /**
   * Queues the record, as it is now, for writing and returns at once: history writing stays off the run's
   * own path. `request` is the run's request, sealed (`sealRequest`), kept with the record for re-runs.
   */
  write(record: RunRecord, request?: string): void;
  /** Writes a record given as its line, `recordLine`'s (a worker thread's run, made into text where it ran). */
  writeLine(id: string, line: string, request?: string): void;
  /** Resolves when every queued record is on disk (bass run awaits it before exiting; serve on shutdown). */
  flush(): Promise<void>;
  /** Newest first. */
  list(filter?: HistoryFilter): Promise<RunRecord[]>;
  read(id: string): Promise<RunRecord | undefined>;
  /** Run `id`'s record and the sealed request kept with it, if any: what a re-run needs, in one read. */
  readStored(id: string): Promise<{ record: RunRecord; sealedRequest: string | undefined } | undefined>;
  /** Where runs keep their files; undefined when the project keeps no payloads at rest. */
  files: RunFilesFolder | undefined;
}

/** A record as its line holds it: with its sealed request, which only re-runs read. */
type StoredRecord = RunRecord & { sealed_request?: string };

/** The store options a project file asks for, with the defaults of docs/reference.md#history; `dir` is relative to the project's folder. */
export function resolveHistoryOptions(
  projectDir: string,
  config: HistoryConfig = {},
  secrets: readonly string[] = [],
): HistoryStoreOptions {
  const dir = resolve(projectDir, config.dir ?? ".bass/history");
  return {
    dir,
    maxRuns: config.max_runs ?? 1000,
    storePayloads: config.store_payloads ?? true,
    maxItemBytes: config.max_item_bytes ?? defaultMaxItemBytes,
    filesDir: resolve(projectDir, ".bass/files"),
    secrets: historySecrets(projectDir, config.dir, dir, secrets),
  };
}

/**
 * A store of run records in `dir`, kept as JSON lines in segment files (see files.ts). Records
 * wait as pending lines and are appended a batch at a time, one write per batch (batches.ts).
 * A line is whole or absent after `kill -9` for every reader, since readers skip a line that is not whole.
 */
export function createHistoryStore(options: HistoryStoreOptions): HistoryStore {
  const { dir } = options;
  const secrets = options.secrets ?? [];
  const pending = createPendingLines();
  const files = runFilesOf(options);
  const segments = createSegmentWriter({
    ...options,
    pruning: files && (async (file) => files.remove(await runsWithFiles(dir, file))),
  });
  const batches = createBatchWriter(pending, segments);
  const writeLine = (id: string, line: string, request?: string) => {
    // Only the engine writes records, with ids it made: anything else is a bug, not a user's mistake.
    if (!isRunId(id)) throw new TypeError(`"${id}" is not a run id`);
    pending.add(id, request === undefined ? line : withRequest(line, request));
    batches.schedule();
  };
  return {
    files,
    write: (record, request) => writeLine(record.id, recordLine(record, options), request),
    writeLine,

    flush: () =>
      maskingErrors(secrets, async () => {
        await batches.flush();
        // Both are taken, so that the next flush reports only what goes wrong after this one.
        const lost = batches.takeLost();
        const failure = segments.takeFailure();
        const problem = lost ?? failure;
        if (problem) throw unwritable(dir, problem);
      }),

    list: (filter) =>
      maskingErrors(secrets, async () => (await listRecords(dir, pending, filter)).map(withoutRequest)),
    read: (id) =>
      maskingErrors(secrets, async () => {
        const record = await readRecord(dir, pending, id);
        return record && withoutRequest(record);
      }),
    readStored: (id) =>
      maskingErrors(secrets, async () => {
        const stored = (await readRecord(dir, pending, id)) as StoredRecord | undefined;
        return stored && { record: withoutRequest(stored), sealedRequest: stored.sealed_request };
      }),
  };
}

/** The folder of runs' files, where the project keeps payloads at rest. */
export function runFilesOf(options: HistoryStoreOptions): RunFilesFolder | undefined {
  return options.storePayloads && options.filesDir !== undefined
    ? createRunFilesFolder(options.filesDir)
    : undefined;
}

/** The runs of a segment that kept files. */
async function runsWithFiles(dir: string, file: HistoryFile): Promise<string[]> {
  const records = await readHistoryFile(dir, file, '"files":');
  return records.filter((record) => record.files !== undefined).map((record) => record.id);
}

/** The record's line with its sealed request as one more key: the two are kept, and pruned, together. */
function withRequest(line: string, request: string): string {
  return `${line.slice(0, -1)},"sealed_request":${JSON.stringify(request)}}`;
}

/** The record alone: the sealed request stays in the store. */
function withoutRequest(record: StoredRecord): RunRecord {
  if (record.sealed_request === undefined) return record;
  const { sealed_request: _, ...rest } = record;
  return rest;
}

/** How a record becomes its line: the part of the store's options that says. */
export type LineOptions = Pick<HistoryStoreOptions, "storePayloads" | "maxItemBytes">;

/**
 * A record as the line the store keeps: its payloads redacted unless `history.store_payloads`, and each cut
 * to `history.max_item_bytes`.
 */
export function recordLine(record: RunRecord, options: LineOptions): string {
  if (!options.storePayloads) return JSON.stringify(applyRedaction(record));
  return cutRecordLine(record, options.maxItemBytes ?? defaultMaxItemBytes);
}

function unwritable(dir: string, problem: HistoryProblem): BassError {
  const reason = (problem.error as Error).message;
  return new BassError(
    "HISTORY_UNWRITABLE",
    `${problem.what} in the history folder ${dir}: ${reason} (history.dir of the project file names a folder bass must be able to write)`,
  );
}

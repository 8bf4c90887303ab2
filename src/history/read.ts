import { isRunId, runIdTime } from "../engine/run-id.js";
import type { RunRecord, RunStatus, RunTrigger } from "../engine/types.js";
import { listHistoryFiles, openedAt, readHistoryFile, segmentMaxAgeMs } from "./files.js";
import type { PendingLines } from "./pending.js";

export interface HistoryFilter {
  integration?: string;
  status?: RunStatus;
  trigger?: RunTrigger;
  label?: string;
  /** Only runs whose masked record holds this text, in any case. */
  text?: string;
  /** Only runs older than this run id: the next page of a list. */
  before?: string;
  limit?: number;
}

/** Files read at the same time by a listing. */
const parallelReads = 16;

/** The record of run `id`: its pending line, else its last line on disk; undefined for a text that is not a run id. */
export async function readRecord(
  dir: string,
  pending: PendingLines,
  id: string,
): Promise<RunRecord | undefined> {
  if (!isRunId(id)) return undefined;
  const line = pending.get(id);
  if (line) return JSON.parse(line) as RunRecord;
  let found: RunRecord | undefined;
  await eachRecord(
    dir,
    (record) => {
      if (record.id === id) found = record;
    },
    id,
  );
  return found;
}

/** The records on disk and pending that match `filter`, newest first. */
export async function listRecords(
  dir: string,
  pending: PendingLines,
  filter: HistoryFilter = {},
): Promise<RunRecord[]> {
  // A drain that ends while the files are read may have written where the reading had already been:
  // what was pending before counts for the runs the files did not give, what is pending after for all.
  const before = pending.all();
  const records = new Map<string, RunRecord>();
  await eachRecord(dir, (record) => records.set(record.id, record));
  const lines = new Map<string, string>();
  for (const [id, line] of before) if (!records.has(id)) lines.set(id, line);
  for (const [id, line] of pending.all()) lines.set(id, line);
  for (const [id, line] of lines) records.set(id, JSON.parse(line) as RunRecord);
  return newestMatching(records, filter);
}

function newestMatching(records: Map<string, RunRecord>, filter: HistoryFilter): RunRecord[] {
  const limit = filter.limit ?? Number.POSITIVE_INFINITY;
  const found: RunRecord[] = [];
  for (const id of [...records.keys()].sort().reverse()) {
    if (found.length >= limit) break;
    const record = records.get(id);
    if (record && matches(record, filter)) found.push(record);
  }
  return found;
}

function matches(record: RunRecord, filter: HistoryFilter): boolean {
  return (
    (filter.before === undefined || record.id < filter.before) &&
    (filter.integration === undefined || record.integration === filter.integration) &&
    (filter.status === undefined || record.status === filter.status) &&
    (filter.trigger === undefined || record.trigger === filter.trigger) &&
    (filter.label === undefined || record.labels.includes(filter.label)) &&
    (filter.text === undefined || holdsText(record, filter.text))
  );
}

/** The record's masked JSON holds `text`, in any case (a customer id, a message): never a masked value. */
function holdsText(record: RunRecord, text: string): boolean {
  const { sealed_request: _, ...plain } = record as RunRecord & { sealed_request?: string };
  return JSON.stringify(plain).toLowerCase().includes(text.toLowerCase());
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

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isRunId, runIdTime } from "../engine/run-id.js";
import type { RunRecord } from "../engine/types.js";
import { BassError } from "../errors.js";
import { isObject } from "../objects.js";
import { systemReason } from "../system-error.js";

/**
 * The files of a history folder. Records are JSON lines in segment files, appended a batch at a time:
 * - `<segment id>.jsonl`: a segment its writer may still append whole lines to;
 * - `<segment id>-<lines>.jsonl`: a sealed segment, its line count in its name so pruning need not read it.
 * A segment id is a run id made when the segment was opened, so names sort oldest first. A run written
 * twice (an async run's `running` record, then its end) has the later line win.
 */
export interface HistoryFile {
  name: string;
  /** A run id made when the segment was opened. */
  id: string;
  /** Records (lines) in a sealed segment; undefined for a segment that may still grow. */
  lines: number | undefined;
}

// A segment's id, then its line count once sealed; the id is checked by isRunId.
const segmentPattern = /^(\w{26})(?:-([1-9]\d{0,8}))?\.jsonl$/;

/**
 * A writer opens a new segment once its current one is this old: a segment opened longer ago than this
 * before a run's id was made cannot hold its record, so a look-up need not read it.
 */
export const segmentMaxAgeMs = 60_000;

export function segmentName(id: string, lines?: number): string {
  return lines === undefined ? `${id}.jsonl` : `${id}-${lines}.jsonl`;
}

/** A history file's parts, or undefined for a name that is not one (temp files, notes, other tools' files). */
export function parseHistoryName(name: string): HistoryFile | undefined {
  const [, id, lines] = segmentPattern.exec(name) ?? [];
  if (id === undefined || !isRunId(id)) return undefined;
  return { name, id, lines: lines === undefined ? undefined : Number(lines) };
}

/** The history files in `dir`, oldest first; none when the folder does not exist yet. */
export async function listHistoryFiles(dir: string): Promise<HistoryFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new BassError(
      "FILE_UNREADABLE",
      `cannot read the history folder ${dir}: ${systemReason(error)} (history.dir of the project file names it)`,
    );
  }
  const files = names.map(parseHistoryName).filter((file) => file !== undefined);
  return files.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** When a segment was opened, in ms since the epoch (from its id). */
export function openedAt(file: HistoryFile): number {
  return runIdTime(file.id);
}

/**
 * The records of one file, in the order they were written. A line that is not whole (a write cut short
 * by a crash, or one still under way) or not a record is skipped: a stray or damaged line must not
 * break a listing. A file that is gone (pruned meanwhile) holds nothing. With `only`, just the lines that
 * mention that text (a run id) are parsed.
 */
export async function readHistoryFile(dir: string, file: HistoryFile, only?: string): Promise<RunRecord[]> {
  let text: string;
  try {
    text = await readFile(join(dir, file.name), "utf8");
  } catch (error) {
    // An open segment sealed since the folder was listed: read it under its new name.
    const sealed = file.lines === undefined && (error as NodeJS.ErrnoException).code === "ENOENT";
    const renamed = sealed ? await findSealed(dir, file.id) : undefined;
    return renamed ? readHistoryFile(dir, renamed, only) : [];
  }
  if (only !== undefined && !text.includes(only)) return [];
  const records: RunRecord[] = [];
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1; start = end + 1, end = text.indexOf("\n", start)) {
    const line = text.slice(start, end);
    if (only !== undefined && !line.includes(only)) continue;
    const record = parseRecord(line);
    if (record) records.push(record);
  }
  return records;
}

async function findSealed(dir: string, id: string): Promise<HistoryFile | undefined> {
  return (await listHistoryFiles(dir)).find((file) => file.id === id && file.lines !== undefined);
}

/** The number of whole lines of a segment whose name does not tell it. */
export async function countLines(dir: string, file: HistoryFile): Promise<number> {
  if (file.lines !== undefined) return file.lines;
  const text = await readFile(join(dir, file.name), "utf8").catch(() => "");
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

function parseRecord(text: string): RunRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRunRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRunRecord(value: unknown): value is RunRecord {
  if (!isObject(value)) return false;
  const record = value as Partial<RunRecord>;
  return (
    typeof record.id === "string" &&
    isRunId(record.id) &&
    typeof record.integration === "string" &&
    typeof record.status === "string" &&
    Array.isArray(record.labels) &&
    Array.isArray(record.items)
  );
}

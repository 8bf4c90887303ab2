import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createRunId } from "../engine/run-id.js";
import { closeFile, openFile, removeFile, renameFile, writeData } from "../fs-calls.js";
import { encodeLines } from "./encoder.js";
import {
  countLines,
  type HistoryFile,
  listHistoryFiles,
  openedAt,
  segmentMaxAgeMs,
  segmentName,
} from "./files.js";

/** Records per segment at most: pruning drops whole segments, so this many more than `max_runs` may be kept. */
const maxSegmentLines = 100;
/** An unsealed segment this old is no longer written to (its writer ended or crashed) and may be pruned. */
const abandonedMs = 10 * 60_000;

export interface SegmentWriterOptions {
  dir: string;
  maxRuns: number;
  /** Called with each segment about to be pruned, while it can still be read. */
  pruning?: ((file: HistoryFile) => Promise<void>) | undefined;
}

/** Something that went wrong with the history's files, kept for flush to report. */
export interface HistoryProblem {
  what: string;
  error: unknown;
}

/** The segment files of one store (see files.ts). Its calls must not overlap: the store chains them. */
export interface SegmentWriter {
  /** How many more lines the open segment takes; opens a new one when there is none, or it is full or old. */
  room(): Promise<number>;
  /** Appends lines (no more than `room()`) to the open segment in one write. */
  append(lines: readonly string[]): Promise<void>;
  /** Closes the open segment and names its line count, so pruning knows it without reading it. */
  seal(): Promise<void>;
  /** Drops the oldest files while the rest still hold `maxRuns` records; never a segment someone may still write. */
  prune(): Promise<void>;
  /** The first problem closing or pruning a segment since the last call, and forgets it. */
  takeFailure(): HistoryProblem | undefined;
}

/** A file on disk and its whole lines; the open segment's count grows with each append. */
interface KnownFile {
  file: HistoryFile;
  lines: number;
}

interface OpenSegment {
  fd: number;
  known: KnownFile;
  openedAt: number;
}

/** Appends batches of lines to segment files in `dir`, seals them, and prunes the oldest. */
export function createSegmentWriter({ dir, maxRuns, pruning }: SegmentWriterOptions): SegmentWriter {
  const segmentLines = Math.min(maxSegmentLines, Math.max(1, Math.ceil(maxRuns / 10)));
  const files = createKnownFiles(dir, pruning);
  let segment: OpenSegment | undefined;
  let failure: HistoryProblem | undefined;

  const isSpent = (open: OpenSegment) =>
    open.known.lines >= segmentLines || Date.now() - open.openedAt > segmentMaxAgeMs;

  const seal = async () => {
    const current = segment;
    if (!current) return;
    segment = undefined;
    const { file, lines } = current.known;
    files.forget(file.name);
    try {
      await closeFile(current.fd);
      if (lines === 0) {
        await removeFile(join(dir, file.name));
        return;
      }
      const sealed = segmentName(file.id, lines);
      await renameFile(join(dir, file.name), join(dir, sealed));
      files.add({ file: { name: sealed, id: file.id, lines }, lines });
    } catch (error) {
      failure ??= { what: `cannot close the segment ${file.name}`, error };
    }
  };

  const open = async (): Promise<OpenSegment> => {
    const now = Date.now();
    await files.load();
    const id = createRunId(now);
    const name = segmentName(id);
    const fd = await openFile(join(dir, name), "ax", 0o600);
    const known = { file: { name, id, lines: undefined }, lines: 0 };
    files.add(known);
    return { fd, known, openedAt: now };
  };

  return {
    seal,

    async room() {
      if (segment && isSpent(segment)) await seal();
      segment ??= await open();
      return segmentLines - segment.known.lines;
    },

    async append(lines) {
      const current = segment;
      if (!current) throw new Error("no open segment to append to");
      try {
        await writeData(current.fd, encodeLines(lines));
      } catch (error) {
        // The segment may end in part of a line now: the next batch goes to a new one.
        await seal();
        throw error;
      }
      current.known.lines += lines.length;
    },

    async prune() {
      try {
        await files.prune(maxRuns, segment?.known.file.id);
      } catch (error) {
        failure ??= { what: "cannot prune old runs", error };
      }
    },

    takeFailure() {
      const taken = failure;
      failure = undefined;
      return taken;
    },
  };
}

/** The files in `dir` with their line counts, oldest first: listed once, then kept up to date by the writer. */
function createKnownFiles(dir: string, pruning: SegmentWriterOptions["pruning"]) {
  let known: Map<string, KnownFile> | undefined;
  return {
    async load() {
      if (known) return;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const found = new Map<string, KnownFile>();
      for (const file of await listHistoryFiles(dir)) {
        found.set(file.name, { file, lines: await countLines(dir, file) });
      }
      known = found;
    },
    add(entry: KnownFile) {
      known?.set(entry.file.name, entry);
    },
    forget(name: string) {
      known?.delete(name);
    },
    /** Removes the oldest files while the others hold `maxRuns` lines, stopping at `writing` or a live open segment. */
    async prune(maxRuns: number, writing: string | undefined) {
      if (!known) return;
      let total = 0;
      for (const { lines } of known.values()) total += lines;
      for (const [name, { file, lines }] of known) {
        if (total - lines < maxRuns || file.id === writing || isLive(file)) break;
        known.delete(name);
        total -= lines;
        try {
          await pruning?.(file);
        } finally {
          // The segment goes whatever became of its runs' files: a record without them still reads.
          await removeFile(join(dir, name));
        }
      }
    },
  };
}

/** Whether another writer may still append to this file. */
function isLive(file: HistoryFile): boolean {
  return file.lines === undefined && Date.now() - openedAt(file) < abandonedMs;
}

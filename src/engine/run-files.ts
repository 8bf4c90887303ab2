// A run's own files (open_file, list_files): the request's files, and those its cells write.
import { shortestMaskedValue } from "./masks.js";
import type { UploadedFile } from "./types.js";

/** One of a run's files, as kept with its record. */
export interface RunFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** What the record says of a file: its content stays in `.bass/files/<run id>/`. */
export interface RunFileInfo {
  name: string;
  type: string;
  size: number;
  /** False when not kept: it held a masked value in bytes that are not text, or the keeper failed. */
  kept?: false;
}

/** Keeps a run's files with its record; absent where runs keep no payloads at rest. */
export interface RunFileKeeper {
  keep(runId: string, files: readonly RunFile[]): Promise<void>;
}

/** A file opened by a cell: `read` in `r`/`rb` modes, `write` in `w`/`wb`/`a`/`ab` modes. */
export interface FileHandle {
  name: string;
  mode: string;
  read(): string | Uint8Array;
  write(data: unknown): number;
  close(): void;
}

export interface RunFiles {
  list(): string[];
  open(name: unknown, mode?: unknown): FileHandle;
  /** Every file, for keeping at the run's end. */
  all(): RunFile[];
}

const modes = new Set(["r", "rb", "w", "wb", "a", "ab"]);
/** All of a run's files together: what a cell writes lives in memory until the run ends. */
const maxRunFilesBytes = 64 * 1024 * 1024;
const typesByExtension: Readonly<Record<string, string>> = {
  csv: "text/csv",
  json: "application/json",
  pdf: "application/pdf",
  txt: "text/plain",
  xml: "application/xml",
};

/** The run's files, starting with those of its request (by file name; a repeated name gets `-2`, `-3`, …). */
export function createRunFiles(
  uploaded: Record<string, UploadedFile | UploadedFile[]> | undefined,
): RunFiles {
  const files = new Map<string, RunFile>();
  for (const entry of Object.values(uploaded ?? {})) {
    for (const { name, type, bytes } of Array.isArray(entry) ? entry : [entry]) {
      const free = freeName(files, fileName(name) ?? "file");
      files.set(free, { name: free, type, bytes });
    }
  }
  const total = () => [...files.values()].reduce((sum, file) => sum + file.bytes.length, 0);

  return {
    list: () => [...files.keys()],
    all: () => [...files.values()],
    open(name, mode = "r") {
      const file = checkedName(name);
      const how = String(mode);
      if (!modes.has(how)) throw new Error(`open_file: mode "${how}" is not one of ${[...modes].join(", ")}`);
      const binary = how.endsWith("b");
      const writing = !how.startsWith("r");
      if (!writing && !files.has(file))
        throw new Error(`open_file: this run has no file "${file}" (list_files() names its files)`);
      if (how.startsWith("w") || (writing && !files.has(file)))
        files.set(file, { name: file, type: typeOf(file, binary), bytes: new Uint8Array() });
      let open = true;
      const usable = (what: string) => {
        if (!open) throw new Error(`open_file: ${file} is closed`);
        if (what === "read" ? writing : !writing)
          throw new Error(`open_file: ${file} is open in mode "${how}", which cannot ${what}`);
        return files.get(file) as RunFile;
      };
      return {
        name: file,
        mode: how,
        read() {
          const { bytes } = usable("read");
          return binary ? new Uint8Array(bytes) : new TextDecoder().decode(bytes);
        },
        write(data) {
          const current = usable("write");
          const added = binary ? bytesOf(data) : new TextEncoder().encode(textOf(data));
          if (total() + added.length > maxRunFilesBytes)
            throw new Error(`open_file: a run's files may hold ${maxRunFilesBytes / 1024 / 1024} MB at most`);
          const joined = new Uint8Array(current.bytes.length + added.length);
          joined.set(current.bytes);
          joined.set(added, current.bytes.length);
          current.bytes = joined;
          return binary ? added.length : (data as string).length;
        },
        close() {
          open = false;
        },
      };
    },
  };
}

/** A file name as a run's files take it: no folders, nothing that leaves the run's folder. */
function fileName(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? "";
  return base === "" || base === "." || base === ".." || base.length > 255 || base.includes("\0")
    ? undefined
    : base;
}

function checkedName(name: unknown): string {
  const text = String(name);
  if (fileName(text) !== text)
    throw new Error(`open_file: "${text}" is not a file name (no folders, at most 255 characters)`);
  return text;
}

function freeName(files: { has(name: string): boolean }, name: string): string {
  if (!files.has(name)) return name;
  const dot = name.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  let count = 2;
  while (files.has(`${stem}-${count}${extension}`)) count++;
  return `${stem}-${count}${extension}`;
}

function typeOf(name: string, binary: boolean): string {
  const extension = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  return typesByExtension[extension] ?? (binary ? "application/octet-stream" : "text/plain");
}

function textOf(data: unknown): string {
  if (typeof data !== "string") throw new TypeError("open_file: a file opened in text mode is written text");
  return data;
}

function bytesOf(data: unknown): Uint8Array {
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("open_file: a file opened in binary mode is written bytes or text");
}

/**
 * The files as kept: a text file with its masked values masked; a file of other bytes that holds a
 * masked value is not kept at all, since bass cannot tell where in it the value is meant.
 */
export function maskedFiles(
  files: readonly RunFile[],
  masked: readonly string[],
  scrub: (text: string) => string,
): { kept: RunFile[]; infos: RunFileInfo[] } {
  const kept: RunFile[] = [];
  const infos: RunFileInfo[] = [];
  const names = new Set<string>();
  for (const file of files) {
    // Its name is masked as its text is: the name on disk and in the record, where a download asks for it.
    const name = freeName(names, scrub(file.name));
    names.add(name);
    const text = textOrUndefined(file.bytes);
    const scrubbed = text === undefined ? undefined : scrub(text);
    const bytes =
      scrubbed === undefined || scrubbed === text ? file.bytes : new TextEncoder().encode(scrubbed);
    const keptFile = { ...file, name, bytes };
    const info: RunFileInfo = { name, type: file.type, size: bytes.length };
    if (text === undefined && holdsMasked(file.bytes, masked)) info.kept = false;
    else kept.push(keptFile);
    infos.push(info);
  }
  return { kept, infos };
}

/** Whether bytes hold a masked value as text would: values as short as the scrubber leaves alone do not count. */
function holdsMasked(bytes: Uint8Array, masked: readonly string[]): boolean {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return masked.some((value) => value.length >= shortestMaskedValue && view.includes(value));
}

function textOrUndefined(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

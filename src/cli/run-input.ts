import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import type { RunInput, UploadedFile } from "../engine/types.js";
import { BassError } from "../errors.js";
import { parseJson } from "../project/data-file.js";
import { envelopeInput, envelopeKeys } from "../project/envelope.js";
import { systemReason } from "../system-error.js";

export interface ReadInputOptions {
  /** Absent: the body is `{}`. */
  input?: string | undefined;
  inputEnvelope: boolean;
  /** `--method`, `--query k=v`, `--path k=v`, `--header "Name: value"`: the request around the body. */
  method?: string | undefined;
  query?: readonly string[] | undefined;
  path?: readonly string[] | undefined;
  header?: readonly string[] | undefined;
  /** `--file name=PATH`: files of the request, by field name. */
  file?: readonly string[] | undefined;
  cwd: string;
  readStdin: () => Promise<string>;
}

/**
 * The run's request: `--input FILE|-` (the body, or with `--input-envelope` the whole request; `{}` without
 * it), then `--method`, `--query`, `--path` and `--header` over it. `warnings` says when a file that looks
 * like an envelope was taken as a body.
 */
export async function readRunInput(
  options: ReadInputOptions,
): Promise<{ input: RunInput; warnings: string[] }> {
  const warnings: string[] = [];
  let input: RunInput = { payload: {} };
  if (options.input !== undefined) {
    const file = options.input;
    input = parseInput(await readInput(file, options), file, options.inputEnvelope);
    if (!options.inputEnvelope && looksLikeEnvelope(input.payload)) {
      warnings.push(
        `${file} looks like an input envelope (${envelopeKeys.join(", ")}) and is taken as the request body; give --input-envelope to read it as the whole request`,
      );
    }
  }
  const files = readFiles(options.file ?? [], options.cwd);
  return { input: { ...withFlags(input, options), ...(files ? { files } : {}) }, warnings };
}

/** Types by extension for `--file`; anything else is application/octet-stream. */
const fileTypes: Readonly<Record<string, string>> = {
  ".json": "application/json",
  ".xml": "application/xml",
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
};

/** `--file name=PATH`s as the request's files, as serve gives a form's: by field name, a name twice a list. */
function readFiles(flags: readonly string[], cwd: string): RunInput["files"] {
  if (flags.length === 0) return undefined;
  const files: Record<string, UploadedFile | UploadedFile[]> = {};
  for (const flag of flags) {
    const at = flag.indexOf("=");
    if (at <= 0) throw new BassError("USAGE", `--file takes name=PATH, not ${JSON.stringify(flag)}`);
    const path = flag.slice(at + 1);
    const bytes = new Uint8Array(readFileSync(resolve(cwd, path)));
    const file = {
      name: basename(path),
      type: fileTypes[extname(path).toLowerCase()] ?? "application/octet-stream",
      size: bytes.byteLength,
      bytes,
    };
    const field = flag.slice(0, at);
    const before = files[field];
    files[field] = before === undefined ? file : Array.isArray(before) ? [...before, file] : [before, file];
  }
  return files;
}

/** An object of envelope keys only, `payload` among them: what a file meant for --input-envelope is. */
function looksLikeEnvelope(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.includes("payload") && keys.every((key) => (envelopeKeys as readonly string[]).includes(key));
}

/** The request with the flags' method, query, path parameters and headers over what the file gave. */
function withFlags(input: RunInput, options: ReadInputOptions): RunInput {
  const pairs = (flag: string, values: readonly string[] | undefined, separator: string) =>
    Object.fromEntries(
      (values ?? []).map((value) => {
        const at = value.indexOf(separator);
        if (at <= 0)
          throw new BassError(
            "USAGE",
            `--${flag} takes ${flag === "header" ? '"Name: value"' : "name=value"}, not ${JSON.stringify(value)}`,
          );
        return [
          flag === "header" ? value.slice(0, at).trim().toLowerCase() : value.slice(0, at),
          value.slice(at + 1).trim(),
        ];
      }),
    );
  const query = pairs("query", options.query, "=");
  const path = pairs("path", options.path, "=");
  const headers = pairs("header", options.header, ":");
  return {
    ...input,
    ...(options.method ? { method: options.method.toUpperCase() } : {}),
    ...(options.query?.length ? { params: { ...input.params, ...query } } : {}),
    ...(options.path?.length ? { path: { ...input.path, ...path } } : {}),
    ...(options.header?.length ? { headers: { ...input.headers, ...headers } } : {}),
  };
}

async function readInput(file: string, options: ReadInputOptions): Promise<string> {
  if (file === "-") return options.readStdin();
  try {
    return readFileSync(resolve(options.cwd, file), "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read the input file ${file}: ${systemReason(error)}`);
  }
}

/** The input file: the request body, or with --input-envelope `{ payload, method, path, params, headers }`. */
function parseInput(text: string, file: string, envelope: boolean): RunInput {
  const value = parseJson(text, file === "-" ? "stdin" : file);
  return envelope ? envelopeInput(value, file) : { payload: value };
}

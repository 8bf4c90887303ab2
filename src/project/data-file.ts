import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ParseError } from "jsonc-parser";
import { BassError } from "../errors.js";
import { systemReason } from "../system-error.js";
import type { ProjectCache } from "./cache.js";

export interface ReadDataFileOptions {
  check?: (value: unknown) => string | undefined;
  /** The file's text, already read (standard input, for `-`): `path` is then only its name. */
  text?: string | undefined;
  /** Where the parsed value is kept while the file is unchanged: the next read needs no YAML parser. */
  cache?: ProjectCache | undefined;
}

/**
 * A file bass reads as a run's data (a mock file, a cassette): YAML, which JSON is too, checked with
 * `check`. Errors name the file as `label`.
 */
export async function readDataFile(
  path: string,
  label: string,
  options: ReadDataFileOptions = {},
): Promise<unknown> {
  const parts = ["data", path];
  const cached = options.text === undefined ? options.cache?.read<{ parsed: unknown }>(parts) : undefined;
  let value = cached?.value.parsed;
  if (!cached) {
    const text = options.text ?? readText(path, label);
    // Loaded on first use: a run whose data files are all in the cache never loads the parser.
    const { parse } = await import("../yaml-text.js");
    try {
      value = parse(text);
    } catch (error) {
      // The first line only: the parser's code frame would print the file's own text, secrets included.
      throw new BassError(
        "INPUT_INVALID",
        `${label} does not parse: ${(error as Error).message.split("\n")[0]}`,
      );
    }
    if (options.text === undefined) options.cache?.write(parts, new Map([[path, text]]), { parsed: value });
  }
  const problem = options.check?.(value);
  if (problem) throw new BassError("INPUT_INVALID", `${label}: ${problem}`);
  return value;
}

/** A JSON file bass reads as a run's data (a test's input file); errors name it as `label`. */
export function readJsonFile(path: string, label: string): unknown {
  return parseJson(readText(path, label), label);
}

function readText(path: string, label: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read ${label}: ${systemReason(error)}`);
  }
}

/** JSON; a syntax error names the file, line and column, and never echoes the text (it may hold secrets). */
export function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BassError("INPUT_INVALID", `${label}${jsonErrorAt(text)}`);
  }
}

/** Where and what the first syntax error is: JSON.parse on Node 20 often gives no position, jsonc-parser does. */
function jsonErrorAt(text: string): string {
  // Required on first use: only a file that does not parse needs it.
  const jsonc = createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  const errors: ParseError[] = [];
  jsonc.parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const [first] = errors;
  const offset = first?.offset ?? text.length;
  const problem = first
    ? jsonc
        .printParseErrorCode(first.error)
        .replace(/(?<=[a-z])(?=[A-Z])/g, " ")
        .toLowerCase()
    : "it is empty";
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `:${line}:${offset - before.lastIndexOf("\n")}: not valid JSON: ${problem}`;
}

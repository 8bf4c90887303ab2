import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ParseError } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import { BassError } from "../errors.js";

/**
 * A file bass reads as a run's data (a mock file, a cassette, a test's input file): YAML (which JSON is
 * too), or with `json` strict JSON, checked with `check`. Errors name the file as `label`.
 */
export function readDataFile(
  path: string,
  label: string,
  options: { json?: boolean; check?: (value: unknown) => string | undefined } = {},
): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read ${label}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = options.json ? parseJson(text, label) : parseYaml(text);
  } catch (error) {
    if (options.json) throw error;
    // The first line only: the parser's code frame would print the file's own text, secrets included.
    throw new BassError(
      "INPUT_INVALID",
      `${label} does not parse: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const problem = options.check?.(value);
  if (problem) throw new BassError("INPUT_INVALID", `${label}: ${problem}`);
  return value;
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

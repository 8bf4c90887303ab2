import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RunInput } from "../engine/run.js";
import { BassError } from "../errors.js";
import { parseJson } from "../project/data-file.js";
import { systemReason } from "../system-error.js";

export interface ReadInputOptions {
  input: string;
  inputEnvelope: boolean;
  cwd: string;
  readStdin: () => Promise<string>;
}

/** `--input FILE|-` read and parsed: the request body, or with `--input-envelope` the whole request. */
export async function readRunInput(options: ReadInputOptions): Promise<RunInput> {
  return parseInput(await readInput(options), options.input, options.inputEnvelope);
}

async function readInput(options: ReadInputOptions): Promise<string> {
  if (options.input === "-") return options.readStdin();
  try {
    return readFileSync(resolve(options.cwd, options.input), "utf8");
  } catch (error) {
    throw new BassError(
      "FILE_NOT_FOUND",
      `cannot read the input file ${options.input}: ${systemReason(error)}`,
    );
  }
}

/** The input file: the request body, or with --input-envelope `{ payload, method, path, params, headers }`. */
function parseInput(text: string, file: string, envelope: boolean): RunInput {
  const value = parseJson(text, file === "-" ? "stdin" : file);
  if (!envelope) return { payload: value };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BassError(
      "INPUT_INVALID",
      `${file}: an input envelope is an object { payload, method, path, params, headers }`,
    );
  }
  const { payload, method, path, params, headers, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw new BassError(
      "INPUT_INVALID",
      `${file}: unknown envelope key ${JSON.stringify(unknown[0])}; an envelope has payload, method, path, params, headers`,
    );
  const objectOf = (key: string, item: unknown) => {
    if (item === undefined) return undefined;
    if (item === null || typeof item !== "object" || Array.isArray(item))
      throw new BassError("INPUT_INVALID", `${file}: envelope ${key} must be an object`);
    return item as Record<string, string>;
  };
  if (method !== undefined && typeof method !== "string")
    throw new BassError("INPUT_INVALID", `${file}: envelope method must be a string such as "GET"`);
  return {
    payload: payload ?? {},
    method,
    path: objectOf("path", path),
    params: objectOf("params", params),
    headers: objectOf("headers", headers),
  };
}

import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { BassError } from "../errors.js";

/**
 * A file bass reads as a run's data (a mock file, a cassette, a test's input file), parsed with `parse`
 * (YAML, which JSON is too, by default) and checked with `check`. Errors name the file as `label`.
 */
export function readDataFile(
  path: string,
  label: string,
  options: { parse?: (text: string) => unknown; check?: (value: unknown) => string | undefined } = {},
): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read ${label}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = (options.parse ?? parseYaml)(text);
  } catch (error) {
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

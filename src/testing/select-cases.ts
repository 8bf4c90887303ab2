import { BassError } from "../errors.js";

/** Which cases a `bass test` runs: `--grep` (a regular expression) and `--shard i/n`. */
export interface CaseSelection {
  grep?: string | undefined;
  shard?: string | undefined;
}

/**
 * The filter of a selection, by test file and case name, or undefined when it selects everything. A
 * case's shard comes from a hash of its file and name: stable whatever else the suite holds, so the n
 * machines of a CI run, each given `--shard i/n`, run every case once between them.
 */
export function caseFilter(selection: CaseSelection): ((file: string, name: string) => boolean) | undefined {
  const grep = selection.grep === undefined ? undefined : regexOf(selection.grep);
  const shard = selection.shard === undefined ? undefined : parseShard(selection.shard);
  if (!grep && !shard) return undefined;
  return (file, name) =>
    (!grep || grep.test(name) || grep.test(`${file} ${name}`)) &&
    (!shard || hash(`${file}\u0000${name}`) % shard.count === shard.index - 1);
}

function regexOf(text: string): RegExp {
  try {
    return new RegExp(text, "iu");
  } catch (error) {
    throw new BassError("USAGE", `--grep takes a regular expression: ${(error as Error).message}`);
  }
}

function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count)
    throw new BassError(
      "USAGE",
      `--shard takes i/n with 1 ≤ i ≤ n, such as 1/3, not ${JSON.stringify(text)}`,
    );
  return { index, count };
}

/** FNV-1a over the text's UTF-16 code units: small, fast and the same everywhere. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

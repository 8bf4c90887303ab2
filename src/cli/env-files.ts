import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { BassError } from "../errors.js";
import { systemReason } from "../system-error.js";

/**
 * The variables of `--env-file` files (dotenv format, as `node --env-file` reads it), later files over
 * earlier ones; the process's own environment wins over all of them, as in Node and docker compose.
 */
export function withEnvFiles(
  env: Readonly<Record<string, string | undefined>>,
  files: readonly string[],
  cwd: string,
): Record<string, string | undefined> {
  const loaded: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), "utf8");
    } catch (error) {
      throw new BassError("FILE_NOT_FOUND", `cannot read the env file ${file}: ${systemReason(error)}`);
    }
    Object.assign(loaded, parseEnv(text));
  }
  return { ...loaded, ...env };
}

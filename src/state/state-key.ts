import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BassError } from "../errors.js";
import { systemReason } from "../system-error.js";
import { tempPathFor } from "../write-atomic.js";
import { createSealer, type Sealer } from "./seal.js";

/** The environment variable that gives the state key; it wins over the project's key file. */
export const stateKeyVariable = "BASS_STATE_KEY";

/** Where a project keeps its own state key when the environment gives none. */
export function stateKeyFile(projectDir: string): string {
  return join(projectDir, ".bass", "state.key");
}

/**
 * The sealer of a project's state (docs/architecture.md#what-bass-keeps-on-disk): the key of `BASS_STATE_KEY` (64 hex characters, or the
 * base64 of 32 bytes), else the one in `.bass/state.key`, made on first use with mode 0600: written whole
 * to a file of its own, then linked in place, which fails for all but one of two processes starting together. A key that is not 32 bytes is an error that
 * says where it came from, never what it holds.
 */
export async function openStateKey(projectDir: string, env: NodeJS.ProcessEnv): Promise<Sealer> {
  return createSealer(await readStateKey(projectDir, env));
}

/** The state key's 32 bytes, from `BASS_STATE_KEY` or the project's key file, as `openStateKey` takes them. */
export async function readStateKey(projectDir: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const given = env[stateKeyVariable];
  if (given !== undefined && given !== "") {
    const key = parseStateKey(given);
    if (!key) {
      throw new BassError(
        "USAGE",
        `${stateKeyVariable} is not a state key: give 64 hex characters or the base64 of 32 bytes (openssl rand -hex 32)`,
      );
    }
    return key;
  }
  return readOrCreateKeyFile(stateKeyFile(projectDir));
}

/** 32 bytes from 64 hex characters or from base64 (standard or URL-safe, padded or not); else undefined. */
export function parseStateKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, "base64");
  return key.byteLength === 32 ? key : undefined;
}

async function readOrCreateKeyFile(file: string): Promise<Buffer> {
  const existing = await readKeyFile(file);
  if (existing) return existing;
  await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
  const temp = tempPathFor(file);
  try {
    await writeFile(temp, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
    await link(temp, file).catch(async (error: NodeJS.ErrnoException) => {
      // A file system without hard links (some network shares and mounted volumes): written in place,
      // exclusively, which leaves a moment where a second process may read it half-written.
      if (error.code !== "EPERM" && error.code !== "ENOTSUP" && error.code !== "ENOSYS") throw error;
      await writeFile(file, await readFile(temp), { flag: "wx", mode: 0o600 });
    });
  } catch (error) {
    // Another process made it first: its key is the project's.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unwritable(file, error);
  } finally {
    await unlink(temp).catch(() => {});
  }
  const made = await readKeyFile(file);
  if (!made) throw new BassError("FILE_UNREADABLE", `${file} is not a state key: 64 hex characters`);
  return made;
}

/** The key in `file`, undefined when there is no file; a file that holds no key is an error. */
async function readKeyFile(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new BassError("FILE_UNREADABLE", `cannot read the state key ${file}: ${systemReason(error)}`);
  }
  const key = parseStateKey(text);
  if (!key) {
    throw new BassError(
      "FILE_UNREADABLE",
      `${file} is not a state key (64 hex characters); delete it to make a new one, which forgets what the old one sealed`,
    );
  }
  return key;
}

function unwritable(file: string, error: unknown): BassError {
  return new BassError(
    "FILE_UNREADABLE",
    `cannot write the state key ${file}: ${systemReason(error)}; set ${stateKeyVariable} instead`,
    { cause: error },
  );
}

import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { threadId } from "node:worker_threads";

declare const __BASS_BUILD_ID__: string | undefined;

/**
 * Which build of bass wrote an entry: the bundle's build sets it from its sources, so an entry of another
 * build is never read; code run from its sources (tests) shares one id.
 */
const buildId = typeof __BASS_BUILD_ID__ === "string" ? __BASS_BUILD_ID__ : "sources";

/**
 * What bass worked out from a project's files (parsed, checked, compiled), kept under `.bass/cache/` for the
 * next process while those files stay the same. Every entry names the files it came from with their
 * SHA-256, and counts only while each still has it. The cache only saves work: an entry that cannot be
 * read or written is worked out again, and never an error.
 */
export interface ProjectCache {
  /** The entry stored under `parts`, and the texts of the files it came from, if each is unchanged. */
  read<T>(parts: readonly string[]): { value: T; texts: ReadonlyMap<string, string> } | undefined;
  /** Stores `value` under `parts`, worked out from `files` (path → content). */
  write(parts: readonly string[], files: ReadonlyMap<string, string>, value: unknown): void;
}

interface Entry {
  files: Record<string, string>;
  value: unknown;
}

/** The cache of the project in `projectDir`. */
export function openProjectCache(projectDir: string): ProjectCache {
  const dir = join(projectDir, ".bass", "cache");
  const pathOf = (parts: readonly string[]) =>
    join(dir, `${sha256([buildId, ...parts].join("\u0000"))}.json`);
  return {
    read<T>(parts: readonly string[]) {
      try {
        const entry = JSON.parse(readFileSync(pathOf(parts), "utf8")) as Entry;
        const texts = new Map<string, string>();
        for (const [path, hash] of Object.entries(entry.files)) {
          const text = readFileSync(path, "utf8");
          if (sha256(text) !== hash) return undefined;
          texts.set(path, text);
        }
        return { value: entry.value as T, texts };
      } catch {
        return undefined;
      }
    },
    write(parts, files, value) {
      // JSON keeps plain data only: a value it would change (.inf, a !!binary Buffer) is worked out each time.
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) return;
      const entry: Entry = {
        files: Object.fromEntries([...files].map(([path, text]) => [path, sha256(text)])),
        value,
      };
      const path = pathOf(parts);
      // Unique per thread too: serve's worker threads share the process's id.
      const temp = `${path}.${process.pid}-${threadId}-${randomBytes(4).toString("hex")}.tmp`;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(temp, JSON.stringify(entry), { mode: 0o600 });
        renameSync(temp, path);
      } catch {
        // A read-only project, a full disk: the next process works it out again.
      }
    },
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

import { relative } from "node:path";

/** A temp file of an atomic write stands for the file it was to become. */
const tempSuffix = /\.\d+-\d+-[0-9a-f]+\.tmp$/;

/**
 * An error of the operating system in words, with the path it was about, or undefined for any other
 * error: users read "no such file: data/out.json", not `ENOENT: no such file or directory, open …`.
 */
export function systemErrorMessage(error: unknown, cwd: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path } = error as NodeJS.ErrnoException;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return undefined;
  const shown = path === undefined ? "" : relative(cwd, path.replace(tempSuffix, "")) || ".";
  const words: Record<string, string> = {
    ENOENT: `no such file or folder: ${shown}`,
    EACCES: `permission denied: ${shown}`,
    EPERM: `permission denied: ${shown}`,
    EISDIR: `${shown} is a folder, not a file`,
    ENOTDIR: `a part of ${shown} is a file, not a folder`,
    EEXIST: `${shown} is there already`,
    ENOSPC: `no space left on the disk for ${shown}`,
    EROFS: `${shown} is on a read-only file system`,
    EMFILE: "too many open files; raise the limit (ulimit -n) or run fewer cases at once",
  };
  return words[code];
}

/** Why a read or write of a file the message already names failed, in words: "no such file", "permission denied". */
export function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    ENOENT: "no such file",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EISDIR: "it is a folder, not a file",
    ENOTDIR: "a part of its path is a file, not a folder",
    ENOSPC: "no space left on the disk",
    EROFS: "it is on a read-only file system",
  };
  return (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
}

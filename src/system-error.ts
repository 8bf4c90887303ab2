import { relative } from "node:path";

/** A temp file of an atomic write stands for the file it was to become. */
const tempSuffix = /\.\d+-\d+-[0-9a-f]+\.tmp$/;

/** What the operating system's codes mean, said of a file or folder. */
const reasons = new Map<unknown, string>([
  ["ENOENT", "no such file or folder"],
  ["EACCES", "permission denied"],
  ["EPERM", "permission denied"],
  ["EISDIR", "it is a folder, not a file"],
  ["ENOTDIR", "a part of its path is a file, not a folder"],
  ["EEXIST", "it is there already"],
  ["ENOSPC", "no space left on the disk"],
  ["EROFS", "it is on a read-only file system"],
  ["EMFILE", "too many open files; raise the limit (ulimit -n) or run fewer cases at once"],
]);

/**
 * An error of the operating system in words, after the path it was about, or undefined for any other
 * error: users read "data/out.json: no such file or folder", not `ENOENT: no such file or directory, open …`.
 */
export function systemErrorMessage(error: unknown, cwd: string): string | undefined {
  const reason = reasons.get((error as NodeJS.ErrnoException | undefined)?.code);
  if (!(error instanceof Error) || reason === undefined) return undefined;
  const { path } = error as NodeJS.ErrnoException;
  return path === undefined ? reason : `${relative(cwd, path.replace(tempSuffix, "")) || "."}: ${reason}`;
}

/** Why a read or write of a file the message already names failed, in words: "no such file or folder". */
export function systemReason(error: unknown): string {
  const reason = reasons.get((error as NodeJS.ErrnoException | undefined)?.code);
  return reason ?? (error instanceof Error ? error.message : String(error));
}

import { close, fsync, open, rename, unlink, writeFile } from "node:fs";
import { promisify } from "node:util";

// The callback API, promisified: serve writes for every request, and FileHandle objects cost more than the writes.
export const openFile = withCallerStack(promisify(open));
/** Writes all of `data` to an open file (text as UTF-8). */
export const writeData = withCallerStack(
  promisify(writeFile) as (fd: number, data: string | Uint8Array) => Promise<void>,
);
export const syncFile = withCallerStack(promisify(fsync));
export const closeFile = withCallerStack(promisify(close));
export const renameFile = withCallerStack(promisify(rename));
export const unlinkFile = withCallerStack(promisify(unlink));

/**
 * `call` whose errors carry the stack of the code that awaited it: libuv's errors come with none, and an
 * error serve did not expect is logged with its stack so that it shows where it happened.
 */
function withCallerStack<A extends unknown[], R>(
  call: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async function called(...args) {
    try {
      return await call(...args);
    } catch (error) {
      if (error instanceof Error) Error.captureStackTrace(error, called);
      throw error;
    }
  };
}

/** Removes a file; one that is already gone is fine. */
export async function removeFile(path: string): Promise<void> {
  await unlinkFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

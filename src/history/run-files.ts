import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunFile, RunFileKeeper } from "../engine/run-files.js";
import { isRunId } from "../engine/run-id.js";

/**
 * The folder of runs' files: `<dir>/<run id>/<file name>`, kept as long as the run's record. File names
 * are checked where files come in (run-files.ts of the engine): plain names, no folders.
 */
export interface RunFilesFolder extends RunFileKeeper {
  /** A file of run `id`; undefined when the run kept none of that name (or its record is gone). */
  read(id: string, name: string): Promise<Uint8Array | undefined>;
  /** Removes the files of runs whose records were pruned. */
  remove(ids: readonly string[]): Promise<void>;
}

export function createRunFilesFolder(dir: string): RunFilesFolder {
  return {
    async keep(id, files: readonly RunFile[]) {
      const folder = join(dir, id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await Promise.all(files.map((file) => writeFile(join(folder, file.name), file.bytes, { mode: 0o600 })));
    },
    async read(id, name) {
      if (!isRunId(id) || name === "" || name === "." || name === ".." || /[\\/\0]/.test(name))
        return undefined;
      try {
        return await readFile(join(dir, id, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async remove(ids) {
      await Promise.all(ids.map((id) => rm(join(dir, id), { recursive: true, force: true })));
    },
  };
}

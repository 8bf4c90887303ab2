import { type Dirent, type FSWatcher, readdirSync, watch } from "node:fs";
import { join, relative } from "node:path";

/** Folders a project's own files are never in. */
const skipped = new Set([".bass", ".git", "node_modules"]);

/**
 * Calls `changed` with the path (relative to `root`) of each file created, changed, removed or renamed
 * anywhere under `root`. Each folder has a watcher of its own, and a folder's events name the files in
 * it, so a file an editor saves by writing a temp file and renaming it over the old one is still seen
 * on every later save (a recursive `fs.watch` on Linux under Node 20 loses such a file after the first
 * save). New folders are watched as they appear.
 */
export function watchTree(root: string, changed: (file: string) => void): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const add = (dir: string) => {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (event, name) => {
        if (!name || skipped.has(name.toString())) return;
        const path = join(dir, name.toString());
        // A rename may be a folder appearing, which needs a watcher of its own.
        if (event === "rename") addTree(path, true);
        changed(relative(root, path));
      });
    } catch {
      return; // Gone already, or not a folder.
    }
    // A folder that is removed ends its watcher.
    watcher.on("error", () => remove(dir));
    watchers.set(dir, watcher);
  };

  const remove = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
  };

  /** Watches `dir` and the folders in it; `report` tells of the files found, which may predate the watcher. */
  const addTree = (dir: string, report = false) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // A file, or a folder that is gone again.
    }
    add(dir);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) addTree(path, report);
      } else if (report) {
        changed(relative(root, path));
      }
    }
  };

  addTree(root);
  return {
    close() {
      closed = true;
      for (const dir of [...watchers.keys()]) remove(dir);
    },
  };
}

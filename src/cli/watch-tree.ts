import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import { join, relative, sep } from "node:path";
import { isSkipped } from "../definition/files.js";

/**
 * Calls `changed` with the path (relative to `root`) of each file created, changed, removed or renamed
 * anywhere under `root`. Each folder has a watcher of its own, and a folder's events name the files in
 * it, so a file an editor saves by writing a temp file and renaming it over the old one is still seen
 * on every later save (a recursive `fs.watch` on Linux under Node 20 loses such a file after the first
 * save). New folders are watched as they appear, also one removed and made again. Names the project's
 * files are never at (`isSkipped`: .bass, .git, node_modules …) are not watched.
 */
export function watchTree(root: string, changed: (file: string) => void): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const add = (dir: string) => {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (event, name) => {
        if (!name || isSkipped(name.toString())) return;
        const path = join(dir, name.toString());
        // A rename may be a folder going (Linux tells its parent, not its own watcher) or appearing: its
        // old watchers are dropped, and one that is there now is watched anew.
        if (event === "rename") {
          forget(path);
          if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) addTree(path, true);
        }
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

  /** Drops the watchers of `dir` and of every folder under it. */
  const forget = (dir: string) => {
    for (const watched of [...watchers.keys()]) {
      if (watched === dir || watched.startsWith(dir + sep)) remove(watched);
    }
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
        if (!isSkipped(entry.name)) addTree(path, report);
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

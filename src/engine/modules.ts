import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { prepareCell } from "./cell-prepare.js";
import type { CellRealm } from "./realm.js";

/** The project file's `modules:`: names, and the files they stand for (relative to `dir`). */
export interface ModuleFiles {
  dir: string;
  paths: Readonly<Record<string, string>>;
}

/** The names a module's code has besides the built-ins: CommonJS's, and no `require`. */
const moduleNames = new Set(["module", "exports"]);

/**
 * `import_module(name)` for one realm: the module's file read and evaluated once, in the cells' realm,
 * the first time a cell asks for it, as CommonJS (`exports.name = …` or `module.exports = {…}`); what it
 * exports is frozen, so that no run changes it. Its code checks the time limit of the cell running it,
 * which is known while the cell runs up to its first await.
 */
export function createModuleLoader(realm: () => CellRealm, files: ModuleFiles): (name: unknown) => unknown {
  const loaded = new Map<string, unknown>();
  return (given) => {
    const name = String(given);
    if (loaded.has(name)) return loaded.get(name);
    if (!Object.hasOwn(files.paths, name)) {
      const known = Object.keys(files.paths);
      throw new Error(
        `import_module: no module ${JSON.stringify(name)} in the project file's modules${known.length ? `; known: ${known.map((one) => JSON.stringify(one)).join(", ")}` : ""}`,
      );
    }
    const path = resolve(files.dir, files.paths[name] as string);
    const prepared = prepareCell(readFileSync(path, "utf8"), moduleNames);
    if (!prepared.ok)
      throw new SyntaxError(
        `import_module: ${files.paths[name]}:${prepared.line}:${prepared.column}: ${prepared.message}`,
      );
    const cells = realm();
    const run = cells.compile(prepared.code, "body", prepared.async, path);
    const scope = cells.adopt({ module: { exports: {} } }) as {
      module: { exports: unknown };
      exports?: unknown;
    };
    scope.exports = scope.module.exports;
    run(scope as never, undefined as never);
    const exports = scope.module.exports;
    cells.harden(exports);
    loaded.set(name, exports);
    return exports;
  };
}

import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { BassError } from "../errors.js";

// What the commands that write a new project (`bass init`, `bass import …`) share: the folder, the refusal
// to write over a file, the `$schema` comments and the `.gitignore`.

/** The installed bass package: dist/cli and the bundle's dist/cli-bundle are both two folders below it. */
export const packageRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Throws a usage error when `target` is a file: `what` says which folder the command takes. */
export function assertNotAFile(target: string, shown: string, what: string): void {
  if (existsSync(target) && !statSync(target).isDirectory())
    throw new BassError("USAGE", `${shown} is a file; ${what}`);
}

/**
 * Throws a usage error naming every one of `paths` (relative to `target`, with `/`) that is there already,
 * before anything is written: `command` writes over no file. `advice` says what to do instead.
 */
export function refuseTakenFiles(
  target: string,
  paths: readonly string[],
  command: string,
  advice: string,
): void {
  const taken = paths.filter((path) => existsSync(join(target, ...path.split("/"))));
  if (taken.length > 0) {
    throw new BassError(
      "USAGE",
      `${command} writes over no file, and these are there already: ${taken.join(", ")}; ${advice}`,
    );
  }
}

/** Writes a file that is not there yet (`path` relative to `target`, with `/`), making its folders. */
export function writeNewFile(target: string, path: string, text: string): void {
  const file = join(target, ...path.split("/"));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { flag: "wx" });
}

/**
 * The folder of bass's JSON Schemas as a file at `path` (relative to `target`) reaches it, with `/`: this bass's
 * own in its checkout, else the one the project installs under `node_modules/bass`.
 */
export function schemasFrom(target: string, path: string): string {
  const folder = dirname(join(target, ...path.split("/")));
  // A project outside bass's own folder finds the schemas where its install of bass puts them (the first
  // steps install it): a path into wherever this bass runs from (npx's cache) would be one machine's.
  const inside = !relative(packageRoot, target).startsWith("..");
  const schemas = inside ? join(packageRoot, "schema") : join(target, "node_modules", "bass", "schema");
  return relative(folder, schemas).split(sep).join(posix.sep);
}

/**
 * A `.gitignore` with `.bass/` (bass's state: history, keys, the state key): made, or the line added; the
 * number of files that changed (0 or 1), for the count a command prints.
 */
export function keepStateOutOfGit(target: string): number {
  const path = join(target, ".gitignore");
  const present = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (/^\/?\.bass\/?$/m.test(present)) return 0;
  appendFileSync(path, `${present === "" || present.endsWith("\n") ? "" : "\n"}.bass/\n`);
  return 1;
}

/**
 * The first next steps bass prints after making a project in `target` (`where`, as the user named it), and
 * the command the other steps run bass with there: as the user ran it (`invoked`) where that finds this
 * bass (a project there or above has it installed, the folder is in bass's own checkout, or it is a global
 * install), and otherwise `npx bass` after installing this bass into the project.
 */
export function firstSteps(
  target: string,
  where: string,
  invoked: string,
): { steps: string[]; bass: string } {
  const steps = where === "." ? [] : [`cd ${where}`];
  if (installedFor(target) || isGlobal()) return { steps, bass: invoked };
  const from = relative(target, packageRoot) || ".";
  const path = from.startsWith(".") || from.startsWith(sep) ? from : `./${from}`;
  return { steps: [...steps, `npm install --save-dev ${path}`], bass: "npx bass" };
}

/** Whether `npx bass` in `folder` finds this bass: installed in a project there or above, or its checkout. */
function installedFor(folder: string): boolean {
  if (!relative(packageRoot, folder).startsWith("..")) return true;
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "bass", "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** Whether this bass is npm's global install (`npm install -g`), whose `bass` is on the PATH. */
function isGlobal(): boolean {
  const prefix = process.env.npm_config_prefix ?? dirname(dirname(process.execPath));
  const roots = [join(prefix, "lib", "node_modules"), join(dirname(process.execPath), "node_modules")];
  return roots.some((root) => resolve(packageRoot) === join(root, "bass"));
}

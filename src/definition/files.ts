import { type Dirent, existsSync, readdirSync, type Stats, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type picomatch from "picomatch";
import { BassError } from "../errors.js";
import type { ProjectConfig } from "./types.js";

export const projectFileName = "bass.config.yaml";

/** The project file in `start` or its nearest ancestor. */
export function findProjectFile(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const file = join(dir, projectFileName);
    if (existsSync(file)) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether a file is a definition (tests of definitions are `*.test.yaml`, docs/reference.md#test-file). */
export function isDefinitionFile(file: string): boolean {
  return /\.ya?ml$/.test(file) && !/\.test\.ya?ml$/.test(file) && !file.endsWith(projectFileName);
}

/** The definition files that folders, files or globs name, sorted and without repeats. */
export function listDefinitionFiles(
  baseDir: string,
  patterns: readonly string[],
): { files: string[]; unmatched: string[] } {
  const files = new Set<string>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const found = /[*?]/.test(pattern) ? matchGlob(baseDir, pattern) : listPath(resolve(baseDir, pattern));
    if (found.length === 0) unmatched.push(pattern);
    for (const file of found) files.add(file);
  }
  return { files: [...files].sort(), unmatched };
}

/** Whether a file holds tests of definitions (docs/reference.md#test-file). */
export function isTestFile(file: string): boolean {
  return /\.test\.ya?ml$/.test(file);
}

/** The test files under the folders or files given, sorted; a path that holds none is left out. */
export function listTestFiles(paths: readonly string[]): string[] {
  const files = paths.flatMap((path) => {
    const stats = statOrUndefined(path);
    if (stats?.isDirectory()) return walk(path).filter(isTestFile);
    return stats?.isFile() && isTestFile(path) ? [path] : [];
  });
  return [...new Set(files)].sort();
}

function listPath(path: string): string[] {
  const stats = statOrUndefined(path);
  if (stats?.isDirectory()) return walk(path).filter(isDefinitionFile);
  return stats?.isFile() && isDefinitionFile(path) ? [path] : [];
}

/** Whether a project's files are never looked for at this name: dot-files and dot-folders (.bass, .git …), node_modules. */
export function isSkipped(name: string): boolean {
  return name === "node_modules" || name.startsWith(".");
}

/**
 * Every file under `dir`, skipping dot-folders and node_modules. Links to folders are not followed (a
 * link back up would loop), and a link counts only when it ends at a regular file; a folder that cannot
 * be read is left out like a dangling link, so that listing files never fails.
 */
function walk(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (isSkipped(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    if (entry.isFile()) return [path];
    return entry.isSymbolicLink() && statOrUndefined(path)?.isFile() ? [path] : [];
  });
}

/** What a path leads to, or undefined when that cannot be known (missing, a link loop, no permission). */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function matchGlob(baseDir: string, pattern: string): string[] {
  const root = resolve(baseDir, pattern.slice(0, pattern.search(/[*?]/)).replace(/[^/]*$/, ""));
  const matches = createGlobMatcher(relative(root, resolve(baseDir, pattern)).split(sep).join("/"));
  return walk(root).filter(
    (file) => isDefinitionFile(file) && matches(relative(root, file).split(sep).join("/")),
  );
}

/** `**` any folders, `*` any name part, `?` one character; everything else literal, as in a file name. */
export function createGlobMatcher(glob: string): (path: string) => boolean {
  // Required on first use: most projects name folders, and every command start would load it otherwise.
  const compile = createRequire(import.meta.url)("picomatch/posix") as typeof picomatch;
  // Every character but the wildcards is escaped, so that ( ) [ ] { } ! + @ and \ stay part of a name.
  return compile(glob.replace(/[^\w/*?.-]/g, "\\$&"), { dot: true });
}

/** The project file's path: `--project DIR`'s, or the first found from `cwd` upwards. */
export function locateProjectFile(options: { cwd: string; projectDir?: string | undefined }): string {
  if (options.projectDir) return projectFileIn(resolve(options.cwd, options.projectDir), options.projectDir);
  const projectFile = findProjectFile(options.cwd);
  if (!projectFile) {
    throw new BassError(
      "PROJECT_NOT_FOUND",
      `no ${projectFileName} in ${options.cwd} or above; give --project DIR`,
    );
  }
  return projectFile;
}

/** The project file of `--project DIR`, with a message for each way DIR is not a project's folder. */
function projectFileIn(dir: string, given: string): string {
  const takes = `--project takes the folder that holds ${projectFileName}`;
  if (!existsSync(dir)) throw new BassError("PROJECT_NOT_FOUND", `no such folder: ${given}; ${takes}`);
  if (!statSync(dir).isDirectory()) {
    const folder = basename(dir) === projectFileName ? `: --project ${dirname(given) || "."}` : "";
    throw new BassError("USAGE", `${given} is a file; ${takes}${folder}`);
  }
  const file = join(dir, projectFileName);
  if (!existsSync(file))
    throw new BassError("PROJECT_NOT_FOUND", `no ${projectFileName} in ${given}; ${takes}`);
  return file;
}

/**
 * The definition files of a project: found with the resolved `integrations` patterns, each named as
 * written, and the patterns that found none.
 */
export function findDefinitionFiles(
  dir: string,
  config: { source: { value: unknown }; value: ProjectConfig | null | undefined },
): { patterns: { pattern: string; written: string }[]; files: string[]; unmatched: string[] } {
  const written = listOf((config.source.value as ProjectConfig | null)?.integrations);
  const patterns = listOf(config.value?.integrations).flatMap((pattern, index) =>
    typeof pattern === "string" ? [{ pattern, written: String(written[index]) }] : [],
  );
  const found = listDefinitionFiles(
    dir,
    patterns.map(({ pattern }) => pattern),
  );
  return { patterns, ...found };
}

/** The `integrations` entries: one folder or glob, or a list of them; "integrations" when absent. */
function listOf(integrations: unknown): unknown[] {
  return Array.isArray(integrations) ? integrations : [integrations ?? "integrations"];
}

/** A path as shown to the user: relative to the working directory when inside it, always with `/`. */
export function displayPath(path: string, cwd: string): string {
  const shown = relative(cwd, path);
  return (shown.startsWith("..") ? path : shown).split(sep).join("/");
}

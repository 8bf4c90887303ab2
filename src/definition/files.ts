import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

export const projectFileName = "bass.config.yaml";

/** The project file in `start` or its nearest ancestor. */
export function findProjectFile(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const file = join(dir, projectFileName);
    if (existsSync(file)) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether a file is a definition (tests of definitions are `*.test.yaml`, SPEC §11). */
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

function listPath(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return walk(path).filter(isDefinitionFile);
}

function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((entry) => !entry.split(sep).some((part) => part === "node_modules" || part.startsWith(".")))
    .map((entry) => join(dir, entry))
    .filter((file) => statSync(file).isFile());
}

function matchGlob(baseDir: string, pattern: string): string[] {
  const root = resolve(baseDir, pattern.slice(0, pattern.search(/[*?]/)).replace(/[^/]*$/, ""));
  if (!existsSync(root)) return [];
  const matcher = globToRegExp(relative(root, resolve(baseDir, pattern)).split(sep).join("/"));
  return walk(root).filter(
    (file) => isDefinitionFile(file) && matcher.test(relative(root, file).split(sep).join("/")),
  );
}

/** `**` any folders, `*` any name part, `?` one character; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === "*" && glob[index + 1] === "*") {
      source += glob[index + 2] === "/" ? "(?:.*/)?" : ".*";
      index += glob[index + 2] === "/" ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

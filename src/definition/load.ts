import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { BassError } from "../errors.js";
import { systemReason } from "../system-error.js";
import { resolveFileEnv } from "./env.js";
import { displayPath, findDefinitionFiles, locateProjectFile } from "./files.js";
import { hasFailures, type Issue } from "./issue.js";
import { type SchemaName, validateSchema } from "./schema.js";
import type { Definition, ProjectConfig } from "./types.js";
import { parseYamlSource, type YamlSource } from "./yaml-source.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** One YAML file of a project, parsed, checked against its schema, with `${env:…}` resolved. */
export interface LoadedFile<T> {
  /** The path as shown to the user: relative to the working directory, with `/`. */
  file: string;
  path: string;
  source: YamlSource;
  /**
   * The value with `${env:…}` resolved, for running; only trustworthy in shape when `issues` holds no
   * error. Lint reads `source.value`, as written, so that nothing from the environment reaches a finding.
   */
  value: T;
  secrets: string[];
  issues: Issue[];
}

export type LoadedDefinition = LoadedFile<Definition>;

export interface LoadedProject {
  dir: string;
  config: LoadedFile<ProjectConfig>;
  definitions: LoadedDefinition[];
  /** Problems of the project as a whole (an integrations entry that matches nothing). */
  issues: Issue[];
}

export interface LoadOptions {
  cwd: string;
  env: Env;
  /** Every file read is added here, path → text (what a cache entry of the result depends on). */
  texts?: Map<string, string>;
}

/** Reads, parses and schema-checks one YAML file; problems are issues, a missing file is a BassError. */
export function loadFile<T>(path: string, schema: SchemaName, options: LoadOptions): LoadedFile<T> {
  const file = displayPath(path, options.cwd);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code === "ENOENT" ? "FILE_NOT_FOUND" : "FILE_UNREADABLE";
    throw new BassError(code, `cannot read ${file}: ${systemReason(error)}`);
  }
  options.texts?.set(path, text);
  const { source, issues } = parseYamlSource(file, text);
  if (!hasFailures(issues)) issues.push(...validateSchema(schema, source));
  const resolved = resolveFileEnv<T>(source, options.env);
  return {
    file,
    path,
    source,
    value: resolved.value,
    secrets: resolved.secrets,
    issues: [...issues, ...resolved.issues],
  };
}

export interface LoadProjectOptions extends LoadOptions {
  /** `--project DIR`; without it the project file is searched from `cwd` upwards. */
  projectDir?: string | undefined;
}

/** The project file, loaded, and the definition files it names (not yet read). */
export interface ResolvedProject {
  dir: string;
  config: LoadedFile<ProjectConfig>;
  definitionFiles: string[];
  /** Problems of the project as a whole (an integrations entry that matches nothing). */
  issues: Issue[];
}

/** Finds and loads the project file, and lists its definition files. */
export function resolveProject(options: LoadProjectOptions): ResolvedProject {
  const projectFile = locateProjectFile(options);
  const config = loadFile<ProjectConfig>(projectFile, "project", options);
  const dir = dirname(projectFile);
  const { patterns, files, unmatched } = findDefinitionFiles(dir, config);
  const issues: Issue[] = patterns
    .filter(({ pattern }) => unmatched.includes(pattern))
    .map(({ written }) => ({
      file: config.file,
      ...config.source.locate(["integrations"]),
      severity: "warning",
      rule: "integrations-missing",
      message: `${JSON.stringify(written)} matches no definition file`,
    }));
  return { dir, config, definitionFiles: files, issues };
}

/** Loads the project file and every definition it names. */
export function loadProject(options: LoadProjectOptions): LoadedProject {
  const { dir, config, definitionFiles, issues } = resolveProject(options);
  const definitions = definitionFiles.map((file) => loadFile<Definition>(file, "definition", options));
  return { dir, config, definitions, issues };
}

import { basename, extname } from "node:path";
import type { Issue } from "../definition/issue.js";
import {
  createReferenceContext,
  lintDefinition,
  lintProject,
  lintProjectFile,
} from "../definition/lint/lint.js";
import {
  type Env,
  type LoadedDefinition,
  type LoadedFile,
  loadFile,
  type ResolvedProject,
  resolveProject,
} from "../definition/load.js";
import type { Definition, ProjectConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { createHistoryStore, type HistoryStore, resolveHistoryOptions } from "../history/store.js";

/** Which definitions a command needs: all of them (serve, test), one by name (run), or none (history). */
export type DefinitionChoice = "all" | "none" | { name: string };

export interface OpenProjectOptions {
  cwd: string;
  env: Env;
  /** `--project DIR`; without it the project file is searched from `cwd` upwards. */
  projectDir?: string | undefined;
  /** Default "all". */
  definitions?: DefinitionChoice;
  /** Check each `request_schema` too: only serve checks bodies against them. Default false. */
  requestSchemas?: boolean;
}

/** The time limits of every run of a project: its `limits`, with the defaults of the project file's reference. */
export interface RunLimits {
  cellTimeoutMs: number;
  runTimeoutMs: number;
}

/** A project as every command opens it: its file, the definitions asked for, their findings and secrets. */
export interface Project {
  dir: string;
  /** The project file as loaded (positions, findings). */
  file: LoadedFile<ProjectConfig>;
  /** The project file's values, `${env:…}` resolved. */
  config: ProjectConfig;
  definitions: LoadedDefinition[];
  /** The findings of the project file and of the definitions loaded, in file order. */
  issues: Issue[];
  /** Every value from the environment in what was loaded: masked wherever it would show. */
  secrets: string[];
  limits: RunLimits;
}

/** Finds the project file, loads it and the definitions asked for, and lints what it loaded. */
export function openProject(options: OpenProjectOptions): Project {
  const resolved = resolveProject(options);
  const { definitions, issues } = loadChosen(resolved, options);
  // A project file that is not a map has findings that stop every command; its limits are the defaults.
  const config = resolved.config.value ?? {};
  return {
    dir: resolved.dir,
    file: resolved.config,
    config,
    definitions,
    issues,
    secrets: [
      ...new Set([...resolved.config.secrets, ...definitions.flatMap((definition) => definition.secrets)]),
    ],
    limits: {
      cellTimeoutMs: config.limits?.cell_timeout_ms ?? 1000,
      runTimeoutMs: config.limits?.run_timeout_ms ?? 30000,
    },
  };
}

/** The definitions a command asked for, and the findings of them and of the project file. */
function loadChosen(
  resolved: ResolvedProject,
  options: OpenProjectOptions,
): { definitions: LoadedDefinition[]; issues: Issue[] } {
  const load = { cwd: options.cwd, env: options.env };
  const lintOptions = { requestSchemas: options.requestSchemas ?? false };
  const choice = options.definitions ?? "all";
  if (choice === "none") return { definitions: [], issues: resolved.config.issues };
  if (choice === "all") {
    const definitions = resolved.definitionFiles.map((file) =>
      loadFile<Definition>(file, "definition", load),
    );
    return { definitions, issues: lintProject({ ...resolved, definitions }, lintOptions) };
  }
  const definition = findDefinition(choice.name, resolved, load);
  const context = createReferenceContext(resolved.config, lintOptions);
  const issues = [...lintProjectFile(resolved.config), ...lintDefinition(definition, context).issues];
  return { definitions: [definition], issues };
}

/** The project's run history, its errors masked with the project's secrets. */
export function openHistory(project: Project): HistoryStore {
  return createHistoryStore(resolveHistoryOptions(project.dir, project.config.history, project.secrets));
}

/** The definition named `name`: its file is tried first by name, then every file of the project. */
function findDefinition(
  name: string,
  project: ResolvedProject,
  load: { cwd: string; env: Env },
): LoadedDefinition {
  const files = project.definitionFiles;
  const byFileName = files.filter((file) => basename(file, extname(file)) === name);
  for (const file of [...byFileName, ...files.filter((file) => !byFileName.includes(file))]) {
    const loaded = loadFile<Definition>(file, "definition", load);
    if (loaded.value?.name === name) return loaded;
  }
  throw new BassError(
    "INTEGRATION_NOT_FOUND",
    `no integration named ${name} in the project (bass validate lists its files)`,
  );
}

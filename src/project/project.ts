import type { Issue } from "../definition/issue.js";
import type { Env, LoadedDefinition, LoadedFile } from "../definition/load.js";
import type { ProjectConfig } from "../definition/types.js";
import type { CompiledIntegration } from "../engine/compile.js";
import type { Engine } from "../engine/engine.js";

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
  /**
   * Keep what opening worked out under the project's `.bass/cache/`, and open from it while the files it
   * came from are unchanged: no YAML parse, lint or cell compile then. Default false.
   */
  cache?: boolean;
  /**
   * Python cells may run on this thread, so opening a project with Python definitions loads the runtime.
   * Default true; false where they run in worker threads or not at all (bass run, bass list): the runtime
   * then loads only to lint files the cache has not seen.
   */
  pythonHere?: boolean;
  /**
   * What the project's runs share with the host's other runs (see Engine): the host's, so that its
   * `unhandledRejection` handler finds the cell that left a rejection. Default: one of the project's own.
   */
  engine?: Engine | undefined;
}

/** The time limits of every run of a project: its `limits`, with the defaults of the project file's reference. */
export interface RunLimits {
  cellTimeoutMs: number;
  runTimeoutMs: number;
  /** The heap of a worker thread that runs integrations, in MB. */
  cellMemoryMb: number;
  /** The most bytes a run's output payload may have. */
  outputBytes: number;
}

/** A project file's `limits`, each unset one its default. */
export function runLimits(config: ProjectConfig): RunLimits {
  return {
    cellTimeoutMs: config.limits?.cell_timeout_ms ?? 1000,
    runTimeoutMs: config.limits?.run_timeout_ms ?? 30000,
    cellMemoryMb: config.limits?.cell_memory_mb ?? 256,
    outputBytes: config.limits?.output_bytes ?? 10 * 1024 * 1024,
  };
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
  /** A definition of the project, compiled once; call it only for one without blocking findings. */
  compile(definition: LoadedDefinition): CompiledIntegration;
}

export interface CreateProjectOptions {
  dir: string;
  file: LoadedFile<ProjectConfig>;
  definitions: LoadedDefinition[];
  issues: Issue[];
  compile(definition: LoadedDefinition): CompiledIntegration;
}

/** A project of loaded files: the config's values, the secrets of every file, the run limits' defaults. */
export function createProject(options: CreateProjectOptions): Project {
  const { file, definitions } = options;
  // A project file that is not a map has findings that stop every command; its limits are the defaults.
  const config = file.value ?? {};
  const compiled = new WeakMap<LoadedDefinition, CompiledIntegration>();
  return {
    dir: options.dir,
    file,
    config,
    definitions,
    issues: options.issues,
    secrets: [...new Set([...file.secrets, ...definitions.flatMap((definition) => definition.secrets)])],
    limits: runLimits(config),
    compile(definition) {
      let integration = compiled.get(definition);
      if (!integration) {
        integration = options.compile(definition);
        compiled.set(definition, integration);
      }
      return integration;
    },
  };
}

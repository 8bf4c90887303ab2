import { basename, extname } from "node:path";
import { compareIssues, type Issue } from "../definition/issue.js";
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
import type { Definition } from "../definition/types.js";
import type { PreparedCell } from "../engine/cell.js";
import { prepareCell } from "../engine/cell-prepare.js";
import { type CompiledIntegration, compileIntegration } from "../engine/compile.js";
import { createEngine } from "../engine/engine.js";
import { createRunRealm } from "../engine/namespace.js";
import type { CellRealm } from "../engine/realm.js";
import { BassError } from "../errors.js";
import { pythonRuntime } from "../python/runtime.js";
import { suggestion } from "../suggest.js";
import { createProject, type OpenProjectOptions, type Project, runLimits } from "./project.js";
import type { CompileSnapshot, FileSnapshot, ProjectSnapshot } from "./snapshot.js";
import { usableDefinitions } from "./usable.js";

/**
 * Opens a project from its files: parses and lints what the command needs, and compiles each definition
 * without blocking findings. The snapshot holds all of it as plain data, and `texts` every file it read.
 */
export function openProjectFiles(options: OpenProjectOptions): {
  project: Project;
  snapshot: ProjectSnapshot;
  texts: Map<string, string>;
  /** It has Python definitions and this thread has no Python runtime yet: load it, then open it again. */
  needsPython: boolean;
} {
  const texts = new Map<string, string>();
  const load = { cwd: options.cwd, env: options.env, texts };
  const resolved = resolveProject({ ...load, projectDir: options.projectDir });
  const { definitions, issues } = loadChosen(resolved, options, load);
  issues.sort(compareIssues);
  const compiled = new Map<LoadedDefinition, CompiledIntegration>();
  const snapshots: Record<string, CompileSnapshot> = {};
  // Made on the first compile: opening a project to read its history needs none.
  let realm: CellRealm | undefined;
  const modules = { dir: resolved.dir, paths: resolved.config.value?.modules ?? {} };
  const memoryMb = runLimits(resolved.config.value ?? {}).cellMemoryMb;
  const realmOf = () => (realm ??= createRunRealm(options.engine ?? createEngine(), modules, memoryMb));
  const needsPython =
    !pythonRuntime() && definitions.some((definition) => definition.value?.language === "python");
  for (const definition of usableDefinitions(definitions, issues)) {
    if (needsPython) break;
    const { integration, snapshot } = compileRecorded(definition, realmOf());
    if (integration) compiled.set(definition, integration);
    // A cell's code holds its `${env:…}` values once resolved: such cells are compiled anew each time.
    if (!definition.source.text.includes("${env:")) snapshots[definition.path] = snapshot;
  }
  const project = createProject({
    dir: resolved.dir,
    file: resolved.config,
    definitions,
    issues,
    compile: (definition) =>
      compiled.get(definition) ?? compileIntegration(definition, prepareCell, realmOf()),
  });
  const snapshot: ProjectSnapshot = {
    dir: resolved.dir,
    config: snapshotFile(resolved.config),
    definitions: definitions.map(snapshotFile),
    listing: resolved.definitionFiles,
    issues: issues.filter((issue) => issue.rule !== "env-unset"),
    compiled: snapshots,
  };
  return { project, snapshot, texts, needsPython };
}

/** Compiles a definition, keeping each cell's prepared code, or the error compiling stopped at. */
function compileRecorded(
  definition: LoadedDefinition,
  realm: CellRealm,
): {
  integration?: CompiledIntegration;
  snapshot: CompileSnapshot;
} {
  const cells = new Map<string, PreparedCell>();
  try {
    const integration = compileIntegration(
      definition,
      (code, names) => {
        const prepared = cells.get(code) ?? prepareCell(code, names);
        cells.set(code, prepared);
        return prepared;
      },
      realm,
    );
    return { integration, snapshot: { cells: [...cells] } };
  } catch (error) {
    if (!(error instanceof BassError)) throw error;
    return { snapshot: { error: { code: error.code, message: error.message, position: error.position } } };
  }
}

function snapshotFile(loaded: LoadedFile<unknown>): FileSnapshot {
  return {
    file: loaded.file,
    path: loaded.path,
    source: loaded.source.snapshot(),
    issues: loaded.issues.filter((issue) => issue.rule !== "env-unset"),
  };
}

/** The definitions a command asked for, and the findings of them and of the project file. */
function loadChosen(
  resolved: ResolvedProject,
  options: OpenProjectOptions,
  load: { cwd: string; env: Env; texts: Map<string, string> },
): { definitions: LoadedDefinition[]; issues: Issue[] } {
  const lintOptions = { requestSchemas: options.requestSchemas ?? false };
  const choice = options.definitions ?? "all";
  if (choice === "none") return { definitions: [], issues: [...resolved.config.issues] };
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

/** The definition named `name`: its file is tried first by name, then every file of the project. */
function findDefinition(
  name: string,
  project: ResolvedProject,
  load: { cwd: string; env: Env; texts: Map<string, string> },
): LoadedDefinition {
  const files = project.definitionFiles;
  const byFileName = files.filter((file) => basename(file, extname(file)) === name);
  const names: string[] = [];
  const nameless: string[] = [];
  for (const file of [...byFileName, ...files.filter((file) => !byFileName.includes(file))]) {
    const loaded = loadFile<Definition>(file, "definition", load);
    const found = loaded.value?.name;
    if (found === name) return loaded;
    if (typeof found === "string") names.push(found);
    else nameless.push(loaded.file);
  }
  // A file whose name could not be read (a YAML error before `name:`) may be the one meant: it is named.
  const unread = nameless.length
    ? `; ${nameless.join(", ")} ${nameless.length === 1 ? "has" : "have"} no name bass could read (bass validate shows why)`
    : "";
  throw new BassError(
    "INTEGRATION_NOT_FOUND",
    `no integration named ${name} in the project${suggestion(name, names)}${unread}`,
  );
}

import { resolveFileEnv } from "../definition/env.js";
import { findDefinitionFiles } from "../definition/files.js";
import { compareIssues, type Issue } from "../definition/issue.js";
import type { Env, LoadedDefinition, LoadedFile } from "../definition/load.js";
import { restoreYamlSource, type SourceSnapshot } from "../definition/source-snapshot.js";
import type { Definition, ProjectConfig } from "../definition/types.js";
import type { PreparedCell } from "../engine/cell.js";
import { compileIntegration } from "../engine/compile.js";
import { createEngine, type Engine } from "../engine/engine.js";
import { createRunRealm } from "../engine/namespace.js";
import type { CellRealm } from "../engine/realm.js";
import { BassError, type BassErrorCode, type SourcePosition } from "../errors.js";
import { createProject, type Project, runLimits } from "./project.js";
import { usableDefinitions } from "./usable.js";

/** One YAML file as loaded, before `${env:…}` is resolved: its parsed source and its own findings. */
export interface FileSnapshot {
  file: string;
  path: string;
  source: SourceSnapshot;
  /** The parser's and the schema's findings. */
  issues: Issue[];
}

/** How a definition compiled: each cell's prepared code (by its text), or the error it stopped at. */
export type CompileSnapshot =
  | { cells: [code: string, prepared: PreparedCell][] }
  | { error: { code: BassErrorCode; message: string; position?: SourcePosition | undefined } };

/** A project as opened, as plain data, with nothing from the environment in it. */
export interface ProjectSnapshot {
  dir: string;
  config: FileSnapshot;
  definitions: FileSnapshot[];
  /** The definition files the project's `integrations` found: another list makes the snapshot stale. */
  listing: string[];
  /** Every finding but `env-unset`, which depends on the environment. */
  issues: Issue[];
  /** Each definition without blocking findings and without `${env:…}`, by its path. */
  compiled: Record<string, CompileSnapshot>;
}

/**
 * The project a snapshot was taken of, opened again in the environment `env` without parsing, linting or
 * compiling anything; undefined when the project's `integrations` now find other files, or a definition
 * that can run has no compiled snapshot (its cells hold `${env:…}` values, or it could not run before).
 */
export function restoreProject(
  snapshot: ProjectSnapshot,
  texts: ReadonlyMap<string, string>,
  env: Env,
  engine: Engine = createEngine(),
): Project | undefined {
  const file = restoreFile<ProjectConfig>(snapshot.config, texts, env);
  const listing = findDefinitionFiles(snapshot.dir, file).files;
  if (listing.join("\n") !== snapshot.listing.join("\n")) return undefined;
  const definitions = snapshot.definitions.map((definition) =>
    restoreFile<Definition>(definition, texts, env),
  );
  const unset = [file, ...definitions].flatMap((loaded) =>
    loaded.issues.filter((issue) => issue.rule === "env-unset"),
  );
  const issues = [...snapshot.issues, ...unset].sort(compareIssues);
  // Made on the first compile: opening a project to read its history needs none.
  let realm: CellRealm | undefined;
  if (usableDefinitions(definitions, issues).some((definition) => !snapshot.compiled[definition.path]))
    return undefined;
  return createProject({
    dir: snapshot.dir,
    file,
    definitions,
    issues,
    compile: (definition) => {
      const modules = { dir: snapshot.dir, paths: file.value?.modules ?? {} };
      realm ??= createRunRealm(engine, modules, runLimits(file.value ?? {}).cellMemoryMb);
      return compileFromSnapshot(definition, snapshot.compiled[definition.path], realm);
    },
  });
}

function restoreFile<T>(snapshot: FileSnapshot, texts: ReadonlyMap<string, string>, env: Env): LoadedFile<T> {
  const source = restoreYamlSource(snapshot.file, texts.get(snapshot.path) ?? "", snapshot.source);
  const resolved = resolveFileEnv<T>(source, env);
  return {
    file: snapshot.file,
    path: snapshot.path,
    source,
    value: resolved.value,
    secrets: resolved.secrets,
    issues: [...snapshot.issues, ...resolved.issues],
  };
}

function compileFromSnapshot(
  definition: LoadedDefinition,
  compiled: CompileSnapshot | undefined,
  realm: CellRealm,
) {
  if (!compiled) throw new Error(`bass: ${definition.file} was not compiled when the project was opened`);
  if ("error" in compiled) {
    const { code, message, position } = compiled.error;
    throw new BassError(code, message, { position });
  }
  const cells = new Map(compiled.cells);
  return compileIntegration(
    definition,
    (code) => {
      const prepared = cells.get(code);
      if (!prepared)
        throw new Error(`bass: a cell of ${definition.file} was not prepared when the project was opened`);
      return prepared;
    },
    realm,
  );
}

import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import {
  findProjectFile,
  isDefinitionFile,
  listDefinitionFiles,
  projectFileName,
} from "../definition/files.js";
import { hasFailures, type Issue } from "../definition/issue.js";
import { lintLoaded, lintProject } from "../definition/lint/lint.js";
import {
  type Env,
  type LoadedDefinition,
  type LoadedFile,
  loadFile,
  loadProject,
} from "../definition/load.js";
import type { ProjectConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { formatIssues, type IssueFormat } from "./formats/index.js";
import type { Output } from "./output.js";

export interface ValidateOptions {
  format: IssueFormat;
  strict: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
  version: string;
}

/** `bass validate [paths…]`: the project, or the files and folders given; exit 1 on an error (any finding with --strict). */
export function runValidate(paths: readonly string[], options: ValidateOptions, output: Output): number {
  const load = { cwd: options.cwd, env: options.env };
  let config: LoadedFile<ProjectConfig> | undefined;
  let definitions: LoadedDefinition[];
  let issues: Issue[];
  if (paths.length === 0) {
    const project = loadProject({ ...load, projectDir: options.project });
    ({ config, definitions } = project);
    issues = lintProject(project);
  } else {
    const named = expandPaths(paths, options.cwd);
    const configFile =
      named.config ??
      findProjectFile(
        options.project
          ? resolve(options.cwd, options.project)
          : dirname(named.definitions[0] ?? options.cwd),
      );
    config = configFile ? loadFile<ProjectConfig>(configFile, "project", load) : undefined;
    definitions = named.definitions.map((file) => loadFile(file, "definition", load));
    // A project file found only to learn its systems is not itself under review.
    issues = lintLoaded(config, definitions).filter((issue) => named.config || issue.file !== config?.file);
  }

  const checked = [...(config ? [config] : []), ...definitions];
  output.stdout(
    formatIssues(options.format, issues, {
      sources: new Map(checked.map((file) => [file.file, file.source.text])),
      color: output.color,
      toolVersion: options.version,
      filesChecked: checked.map((file) => file.file),
    }),
  );
  return hasFailures(issues, options.strict) ? 1 : 0;
}

/** Definition files under the paths given, and the project file if one of them is it. */
function expandPaths(
  paths: readonly string[],
  cwd: string,
): { definitions: string[]; config: string | undefined } {
  let config: string | undefined;
  const definitions = new Set<string>();
  for (const path of paths) {
    const full = resolve(cwd, path);
    if (!existsSync(full)) throw new BassError("FILE_NOT_FOUND", `no such file or folder: ${path}`);
    if (basename(full) === projectFileName) config = full;
    else if (statSync(full).isDirectory())
      for (const file of listDefinitionFiles(full, ["."]).files) definitions.add(file);
    else if (isDefinitionFile(full)) definitions.add(full);
    else throw new BassError("USAGE", `${path} is not a definition file (.yaml or .yml, not .test.yaml)`);
  }
  return { definitions: [...definitions].sort(), config };
}

import { dirname } from "node:path";
import { locateProjectFile } from "../definition/files.js";
import { createHistoryStore, type HistoryStore, resolveHistoryOptions } from "../history/store.js";
import { loadPython } from "../python/runtime.js";
import { openProjectCache } from "./cache.js";
import type { OpenProjectOptions, Project } from "./project.js";
import { type ProjectSnapshot, restoreProject } from "./snapshot.js";

export type { DefinitionChoice, OpenProjectOptions, Project, RunLimits } from "./project.js";

/** Finds the project file, loads it and the definitions asked for, lints them and compiles the usable ones. */
export async function openProject(options: OpenProjectOptions): Promise<Project> {
  const projectFile = locateProjectFile(options);
  const cache = options.cache ? openProjectCache(dirname(projectFile)) : undefined;
  const parts = [
    "project",
    options.cwd,
    projectFile,
    JSON.stringify(options.definitions ?? "all"),
    String(options.requestSchemas ?? false),
  ];
  const cached = cache?.read<ProjectSnapshot>(parts);
  const restored = cached && restoreProject(cached.value, cached.texts, options.env, options.engine);
  if (restored) {
    const python = restored.definitions.some((definition) => definition.value?.language === "python");
    if (python && options.pythonHere !== false) await loadPython();
    return restored;
  }
  // The parser, the linter and the cell compiler load only when something must be worked out anew.
  const { openProjectFiles } = await import("./open-files.js");
  let opened = openProjectFiles(options);
  // Python cells are linted and compiled by CPython: a project that has them is opened again once it is loaded.
  if (opened.needsPython) {
    await loadPython();
    opened = openProjectFiles(options);
  }
  cache?.write(parts, opened.texts, opened.snapshot);
  return opened.project;
}

/** The project's run history, its errors masked with the project's secrets. */
export function openHistory(project: Project): HistoryStore {
  return createHistoryStore(resolveHistoryOptions(project.dir, project.config.history, project.secrets));
}

import type { Env } from "../definition/load.js";
import { BassError } from "../errors.js";
import { openProject, type Project } from "../project/open.js";

/**
 * The project found from `--project` or the current folder, its project file only (no definition is
 * loaded): what `bass history` and `bass vault` need. A project file with an error cannot be used.
 */
export async function openProjectFile(options: {
  project?: string | undefined;
  cwd: string;
  env: Env;
}): Promise<Project> {
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    definitions: "none",
    cache: true,
  });
  const error = project.issues.find((issue) => issue.severity === "error");
  if (error) {
    throw new BassError(
      "PROJECT_INVALID",
      `${error.message} (${error.rule}); bass validate lists every problem of the project file`,
      { position: { file: error.file, line: error.line, column: error.column } },
    );
  }
  return project;
}

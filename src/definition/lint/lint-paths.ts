import { isBassError } from "../../errors.js";
import { displayPath } from "../files.js";
import { type LoadedDefinition, type LoadOptions, loadFile } from "../load.js";
import type { Definition } from "../types.js";
import { type DefinitionLint, lintDefinition } from "./lint.js";
import type { ReferenceContext } from "./lint-references.js";

/** A definition's findings with its text, kept only when there are findings to show in a code frame, and its name. */
export type PathLint = DefinitionLint & { text?: string; name?: string };

export interface LintPathsOptions extends LoadOptions {
  context: ReferenceContext;
}

/** Lints definition files one at a time: each is read, linted and let go, so memory stays flat. */
export function lintPaths(paths: readonly string[], options: LintPathsOptions): PathLint[] {
  return paths.map((path) => {
    let definition: LoadedDefinition;
    try {
      definition = loadFile<Definition>(path, "definition", options);
    } catch (error) {
      if (!isBassError(error)) throw error;
      const file = displayPath(path, options.cwd);
      return {
        file,
        issues: [
          { file, line: 1, column: 1, severity: "error", rule: "file-unreadable", message: error.message },
        ],
      };
    }
    const lint: PathLint = lintDefinition(definition, options.context);
    if (lint.issues.length > 0) lint.text = definition.source.text;
    const { name } = (definition.source.value ?? {}) as { name?: unknown };
    if (typeof name === "string") lint.name = name;
    return lint;
  });
}

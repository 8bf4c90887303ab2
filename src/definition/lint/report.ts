import type { Issue, Severity } from "../issue.js";
import type { LoadedFile } from "../load.js";
import type { RuleId } from "../rules.js";
import type { Position, ValuePath } from "../value-path.js";

/** Adds one finding; `at` is a value path (placed at its key, or its value) or an exact position. */
export type Report = (
  rule: RuleId,
  message: string,
  at: ValuePath | Position,
  options?: { target?: "key" | "value"; severity?: Severity; sensitive?: true },
) => void;

/** A `Report` that collects findings of one file into `issues`. */
export function createReport(loaded: LoadedFile<unknown>, issues: Issue[]): Report {
  return (rule, message, at, options = {}) => {
    const position = Array.isArray(at) ? loaded.source.locate(at, options.target) : (at as Position);
    const { severity = "error", sensitive } = options;
    issues.push({ file: loaded.file, ...position, severity, rule, message, ...(sensitive && { sensitive }) });
  };
}

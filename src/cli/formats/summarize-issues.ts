import { compareText, type Issue } from "../../definition/issue.js";

export interface IssueSummary {
  /** Every checked file and every file a finding names, in path order, each with its findings. */
  files: Map<string, Issue[]>;
  errors: number;
  warnings: number;
}

/** Groups findings by file (clean files included) and counts them by severity. */
export function summarizeIssues(issues: readonly Issue[], filesChecked: readonly string[]): IssueSummary {
  // A finding may name a file the caller did not list (the project file, say); counting it too keeps
  // "in 3 of 2 files" from ever being printed.
  const names = [...new Set([...filesChecked, ...issues.map((issue) => issue.file)])].sort(compareText);
  const files = new Map(names.map((name): [string, Issue[]] => [name, []]));
  for (const issue of issues) files.get(issue.file)?.push(issue);
  const errors = issues.filter((issue) => issue.severity === "error").length;
  return { files, errors, warnings: issues.length - errors };
}

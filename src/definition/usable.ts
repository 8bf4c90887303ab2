import { BassError } from "../errors.js";
import type { Issue } from "./issue.js";

/** Findings that stop run, serve and test: errors, and unset variables without a default (SPEC §3, §4.4). */
export function isBlocking(issue: Issue): boolean {
  return issue.severity === "error" || issue.rule === "env-unset";
}

/** Throws a BassError listing every blocking finding, each at its file, line and column. */
export function assertUsable(issues: readonly Issue[], what: string): void {
  const blocking = issues.filter(isBlocking);
  if (blocking.length === 0) return;
  const lines = blocking.map(
    (issue) => `  ${issue.file}:${issue.line}:${issue.column}  ${issue.message}  (${issue.rule})`,
  );
  throw new BassError(
    "DEFINITION_INVALID",
    `${what} cannot be used until these are fixed (bass validate shows them all):\n${lines.join("\n")}`,
  );
}

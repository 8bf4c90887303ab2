import type { Issue } from "../definition/issue.js";
import { BassError } from "../errors.js";

/** Findings that stop run, serve and test: errors, and unset variables without a default. */
export function isBlocking(issue: Issue): boolean {
  return issue.severity === "error" || issue.rule === "env-unset";
}

/** The definitions without a blocking finding of their own. */
export function usableDefinitions<T extends { file: string }>(
  definitions: readonly T[],
  issues: readonly Issue[],
): T[] {
  const blocked = new Set(issues.filter(isBlocking).map((issue) => issue.file));
  return definitions.filter((definition) => !blocked.has(definition.file));
}

/** One finding as one line of a message: `file:line:column  message  (rule)`. */
export function formatIssueLine(issue: Issue): string {
  return `${issue.file}:${issue.line}:${issue.column}  ${issue.message}  (${issue.rule})`;
}

/** The findings that do not block, as `warning:` lines for stderr. */
export function formatWarnings(issues: readonly Issue[]): string {
  return issues
    .filter((issue) => !isBlocking(issue))
    .map((issue) => `warning: ${formatIssueLine(issue)}\n`)
    .join("");
}

/** Throws a BassError listing every blocking finding, each at its file, line and column. */
export function assertUsable(issues: readonly Issue[], what: string): void {
  const blocking = issues.filter(isBlocking);
  if (blocking.length === 0) return;
  throw new BassError(
    "DEFINITION_INVALID",
    `${what} cannot be used until these are fixed (bass validate shows them all):\n${formatIssueList(blocking)}`,
  );
}

/** Findings as indented lines, one each, for a message that lists them. */
export function formatIssueList(issues: readonly Issue[]): string {
  return issues.map((issue) => `  ${formatIssueLine(issue)}`).join("\n");
}

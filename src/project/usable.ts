import type { Issue } from "../definition/issue.js";
import { BassError } from "../errors.js";

/**
 * Findings that stop run, serve and test: errors, and unset variables without a default, but those of a
 * system's settings, which stop only what calls the live systems (a `--mock` run never sends a
 * system's headers): see `unsetForSystems`.
 */
export function isBlocking(issue: Issue): boolean {
  return issue.severity === "error" || (issue.rule === "env-unset" && !forSystems(issue));
}

/** The unset variables of the systems' settings: what starting the live systems needs. */
export function unsetForSystems(issues: readonly Issue[]): Issue[] {
  return issues.filter((issue) => issue.rule === "env-unset" && forSystems(issue));
}

function forSystems(issue: Issue): boolean {
  return issue.at?.[0] === "systems";
}

/** The definitions without a blocking finding of their own. */
export function usableDefinitions<T extends { file: string }>(
  definitions: readonly T[],
  issues: readonly Issue[],
): T[] {
  const blocked = new Set(issues.filter(isBlocking).map((issue) => issue.file));
  return definitions.filter((definition) => !blocked.has(definition.file));
}

/** The files with blocking findings among `definitions`, in order: each blocks only itself (docs/behaviour.md#bass-validate). */
export function brokenFiles(definitions: readonly { file: string }[], issues: readonly Issue[]): string[] {
  const blocked = new Set(issues.filter(isBlocking).map((issue) => issue.file));
  return definitions.map((definition) => definition.file).filter((file) => blocked.has(file));
}

/** The one warning line that says which definitions a command leaves out, or nothing when none is broken. */
export function formatBroken(broken: readonly string[]): string {
  if (broken.length === 0) return "";
  const which = broken.length === 1 ? "1 broken definition" : `${broken.length} broken definitions`;
  return `warning: leaving out ${which} (bass validate shows why): ${broken.join(", ")}\n`;
}

/** The findings of some files only: the project file's and a definition's, say. */
export function issuesOf(issues: readonly Issue[], files: readonly string[]): Issue[] {
  return issues.filter((issue) => files.includes(issue.file));
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

import type { Issue } from "../../definition/issue.js";

/** GitHub Actions workflow commands, one annotation per finding; empty when there is nothing to annotate. */
export function formatGithub(issues: readonly Issue[]): string {
  // Both severities are also the names of GitHub's commands: `::error` and `::warning`.
  return issues
    .map((issue) => {
      const properties = [
        `file=${escapeProperty(issue.file)}`,
        `line=${issue.line}`,
        `col=${issue.column}`,
        `title=${escapeProperty(issue.rule)}`,
      ].join(",");
      return `::${issue.severity} ${properties}::${escapeData(issue.message)}\n`;
    })
    .join("");
}

// The same escaping as @actions/core (packages/core/src/command.ts), which the runner undoes: `%` first,
// so an escape we write is never escaped again, and a newline cannot end the command early.
function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

// Property values also escape the delimiters between properties (`,`) and before the message (`:`).
function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

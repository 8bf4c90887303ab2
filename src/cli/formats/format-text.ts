import { Chalk, type ChalkInstance } from "chalk";
import type { Issue } from "../../definition/issue.js";
import { createCodeFrame } from "./code-frame.js";
import type { FormatIssueReportOptions } from "./report-options.js";
import { summarizeIssues } from "./summarize-issues.js";

export type FormatTextOptions = Pick<FormatIssueReportOptions, "sources" | "color" | "filesChecked">;

/** Findings grouped by file, each with a code frame, and a summary line: for people at a terminal. */
export function formatText(issues: readonly Issue[], options: FormatTextOptions): string {
  // An instance of our own, so that `color: false` means no ANSI whatever chalk detects on the terminal.
  const paint = new Chalk({ level: options.color ? 1 : 0 });
  const { files, errors, warnings } = summarizeIssues(issues, options.filesChecked);
  const shown = [...files].filter(([, found]) => found.length > 0);
  const out = shown.flatMap(([file, found]) => fileFindings(file, found, options.sources.get(file), paint));
  out.push(summarize(paint, { errors, warnings, filesWithProblems: shown.length, files: files.size }));
  return `${out.join("\n")}\n`;
}

/** One file's findings: its name, then each finding's line with its code frame, then a blank line. */
function fileFindings(
  file: string,
  found: readonly Issue[],
  text: string | undefined,
  paint: ChalkInstance,
): string[] {
  const out = [paint.underline(file)];
  const positionWidth = Math.max(...found.map((issue) => position(issue).length));
  const severityWidth = Math.max(...found.map((issue) => issue.severity.length));
  const source = hideSensitiveLines(text, found);
  for (const issue of found) {
    const tint = issue.severity === "error" ? paint.red : paint.yellow;
    const where = paint.dim(position(issue).padEnd(positionWidth));
    const severity = tint(issue.severity.padEnd(severityWidth));
    out.push(`  ${where}  ${severity}  ${issue.message}  ${paint.dim(issue.rule)}`);
    // A sensitive finding's line holds the secret it is about: printing it would leak it once more.
    const frame =
      source === undefined || issue.sensitive
        ? []
        : createCodeFrame(source, issue.line, issue.column, { gutter: paint.dim, mark: tint.bold });
    if (frame.length > 0) out.push(...frame, "");
  }
  if (out.at(-1) !== "") out.push("");
  return out;
}

/**
 * The file's text with every line that a sensitive finding is about blanked out: that line holds the
 * secret, so no frame (its own, or a neighbour's context) may print it.
 */
function hideSensitiveLines(source: string | undefined, found: readonly Issue[]): string | undefined {
  const lines = new Set(found.filter((issue) => issue.sensitive).map((issue) => issue.line));
  if (source === undefined || lines.size === 0) return source;
  return source
    .split("\n")
    .map((text, index) => (lines.has(index + 1) ? "(hidden: it holds a secret)" : text))
    .join("\n");
}

function position(issue: Issue): string {
  return `${issue.line}:${issue.column}`;
}

interface Counts {
  errors: number;
  warnings: number;
  filesWithProblems: number;
  files: number;
}

function summarize(paint: ChalkInstance, counts: Counts): string {
  const problems = counts.errors + counts.warnings;
  if (problems === 0) return paint.green(`✔ ${plural(counts.files, "file")} checked, no problems`);
  const tint = counts.errors > 0 ? paint.red.bold : paint.yellow.bold;
  const bySeverity = `${plural(counts.errors, "error")}, ${plural(counts.warnings, "warning")}`;
  return tint(
    `✖ ${plural(problems, "problem")} (${bySeverity}) in ${counts.filesWithProblems} of ${plural(counts.files, "file")}`,
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

import type { Issue } from "../../definition/issue.js";
import type { FormatIssueReportOptions } from "./report-options.js";
import { summarizeIssues } from "./summarize-issues.js";

export type FormatJsonOptions = Pick<FormatIssueReportOptions, "filesChecked">;

/** `{ summary, findings }` as pretty JSON: for scripts. */
export function formatJson(issues: readonly Issue[], options: FormatJsonOptions): string {
  const { files, errors, warnings } = summarizeIssues(issues, options.filesChecked);
  // Picking the keys keeps the documented shape and order even if Issue grows a field.
  const findings = issues.map(({ file, line, column, severity, rule, message }) => ({
    file,
    line,
    column,
    severity,
    rule,
    message,
  }));
  return `${JSON.stringify({ summary: { files: files.size, errors, warnings }, findings }, null, 2)}\n`;
}

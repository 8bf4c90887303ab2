import type { Issue } from "../../definition/issue.js";
import type { IssueFormat } from "../choices.js";
import { formatGithub } from "./format-github.js";
import { formatJson } from "./format-json.js";
import { formatJunit } from "./format-junit.js";
import { formatSarif } from "./format-sarif.js";
import { formatText } from "./format-text.js";
import type { FormatIssueReportOptions } from "./report-options.js";

export { type IssueFormat, issueFormats } from "../choices.js";
export type { FormatIssueReportOptions } from "./report-options.js";

const formatters: Record<
  IssueFormat,
  (issues: readonly Issue[], options: FormatIssueReportOptions) => string
> = {
  text: formatText,
  json: formatJson,
  sarif: formatSarif,
  junit: formatJunit,
  github: formatGithub,
};

/** Renders validate's findings (sorted by file, line, column) as the whole output of one format. */
export function formatIssueReport(
  format: IssueFormat,
  issues: readonly Issue[],
  options: FormatIssueReportOptions,
): string {
  return formatters[format](issues, options);
}

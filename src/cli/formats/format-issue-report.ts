import type { Issue } from "../../definition/issue.js";
import type { IssueFormat } from "../choices.js";
import { formatGithub } from "./format-github.js";
import { formatJson } from "./format-json.js";
import { formatJunit } from "./format-junit.js";
import { formatSarif } from "./format-sarif.js";
import { formatText } from "./format-text.js";

export { type IssueFormat, issueFormats } from "../choices.js";

export interface FormatIssueReportOptions {
  /** File path -> its full text, for code frames (text format); a file missing from the map gets no frame. */
  sources: ReadonlyMap<string, string>;
  /** Text format only; when false there are no ANSI codes at all. */
  color: boolean;
  /** SARIF's `driver.version`. */
  toolVersion: string;
  /** Every file that was validated: JUnit lists clean files as passing testcases, text and JSON count them. */
  filesChecked: readonly string[];
  /** `--strict`: warnings fail too (JUnit shows them as failures). */
  strict?: boolean;
}

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

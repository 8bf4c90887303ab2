export { type CodeFrameStyle, createCodeFrame } from "./code-frame.js";
export { escapeXml, escapeXmlAttribute } from "./escape-xml.js";
export { formatGithub } from "./format-github.js";
export {
  type FormatIssueReportOptions,
  formatIssueReport,
  type IssueFormat,
  issueFormats,
} from "./format-issue-report.js";
export { type FormatJsonOptions, formatJson } from "./format-json.js";
export { type FormatJunitOptions, formatJunit } from "./format-junit.js";
export { type FormatSarifOptions, formatSarif } from "./format-sarif.js";
export { type FormatTextOptions, formatText } from "./format-text.js";
export { type IssueSummary, summarizeIssues } from "./summarize-issues.js";

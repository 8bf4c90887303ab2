import type { Issue } from "../../definition/issue.js";
import { escapeXml, escapeXmlAttribute } from "./escape-xml.js";
import type { FormatIssueReportOptions } from "./report-options.js";
import { summarizeIssues } from "./summarize-issues.js";

export type FormatJunitOptions = Pick<FormatIssueReportOptions, "filesChecked" | "strict">;

/** JUnit XML, one testsuite per checked file: for CI test reports (GitLab, Jenkins, GitHub reporters). */
export function formatJunit(issues: readonly Issue[], options: FormatJunitOptions): string {
  const { files } = summarizeIssues(issues, options.filesChecked);
  const fails = (issue: Issue) => issue.severity === "error" || options.strict === true;
  const suites: string[] = [];
  let tests = 0;
  for (const [file, found] of files) {
    const cases =
      found.length === 0
        ? [`    <testcase classname="${escapeXmlAttribute(file)}" name="no problems"/>`]
        : found.map((issue) => testcase(issue, fails(issue)));
    const failures = found.filter(fails).length;
    tests += cases.length;
    suites.push(
      `  <testsuite name="${escapeXmlAttribute(file)}" tests="${cases.length}" failures="${failures}" errors="0">`,
      ...cases,
      "  </testsuite>",
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="bass validate" tests="${tests}" failures="${issues.filter(fails).length}" errors="0">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}

// A warning does not fail `validate` (exit 0 unless --strict), and CI tools treat any <failure> as a
// failed test (Jenkins marks the build unstable, GitLab lists it as failed), so without --strict a warning
// is a passing testcase: listed by name, its message in <system-out>, which reports show with the test.
function testcase(issue: Issue, failed: boolean): string {
  const where = `${issue.line}:${issue.column}`;
  const open = `    <testcase classname="${escapeXmlAttribute(issue.file)}" name="${escapeXmlAttribute(`${issue.rule} at ${where}`)}">`;
  const text = escapeXml(`${issue.file}:${where} ${issue.message}`);
  const body = failed
    ? `      <failure message="${escapeXmlAttribute(issue.message)}" type="${issue.severity}">${text}</failure>`
    : `      <system-out>${text}</system-out>`;
  return [open, body, "    </testcase>"].join("\n");
}

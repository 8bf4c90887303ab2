import { Chalk } from "chalk";
import type { CaseResult } from "../testing/run-tests.js";
import type { TestReporter } from "./choices.js";
import { escapeXml, escapeXmlAttribute } from "./formats/escape-xml.js";

export interface FormatTestReportOptions {
  color: boolean;
  durationMs: number;
  /** Cases whose expected output `--update` rewrote. */
  updated: number;
  /** How the user runs bass (`npx bass` through npx), for the command a failed case points at. */
  command?: string | undefined;
}

/**
 * The results of `bass test` for people (text), scripts (json) or CI test reports (junit). The text
 * reporter's report is its summary: each file's lines print as the file finishes (`formatTestFile`).
 */
export function formatTestReport(
  reporter: TestReporter,
  results: readonly CaseResult[],
  options: FormatTestReportOptions,
): string {
  if (reporter === "json") return `${JSON.stringify(toJson(results, options), null, 2)}\n`;
  if (reporter === "junit") return formatJunit(results, options);
  return formatSummary(results, options);
}

function counts(results: readonly CaseResult[]) {
  const failed = results.filter((result) => result.status === "failed").length;
  return { total: results.length, passed: results.length - failed, failed };
}

function toJson(results: readonly CaseResult[], options: FormatTestReportOptions) {
  return {
    summary: {
      ...counts(results),
      duration_ms: Math.round(options.durationMs),
      updated: options.updated > 0,
    },
    cases: results.map(
      ({ file, integration, name, status, duration_ms, differences, producedBy, runId }) => ({
        file,
        integration,
        name,
        status,
        duration_ms,
        run_id: runId,
        differences,
        produced_by: producedBy,
      }),
    ),
  };
}

/** The text reporter's lines for one test file, printed as soon as its cases are done. */
export function formatTestFile(results: readonly CaseResult[], options: FormatTestReportOptions): string {
  const paint = new Chalk({ level: options.color ? 1 : 0 });
  const first = results[0];
  if (first === undefined) return "";
  const lines = [paint.underline(`${first.file} (${first.integration})`)];
  for (const result of results) {
    const mark = result.status === "passed" ? paint.green("✓") : paint.red("✗");
    lines.push(`  ${mark} ${result.name} ${paint.dim(`${result.duration_ms} ms`)}`);
    for (const difference of result.differences)
      lines.push(`      ${paint.red(difference.path)}: ${difference.message}`);
    for (const cause of result.producedBy) lines.push(`      ${paint.dim(`from ${cause}`)}`);
    if (result.status === "failed" && result.runId)
      lines.push(`      ${paint.dim(`${options.command ?? "bass"} history show ${result.runId}`)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The text reporter's closing lines; the files' own lines went out as each finished. */
function formatSummary(results: readonly CaseResult[], options: FormatTestReportOptions): string {
  const paint = new Chalk({ level: options.color ? 1 : 0 });
  const { total, passed, failed } = counts(results);
  const summary = `${passed} passed, ${failed} failed`;
  const updated = options.updated
    ? `; ${options.updated} expected output${options.updated === 1 ? "" : "s"} updated`
    : "";
  return `\n${failed ? paint.red(summary) : paint.green(summary)} (${total} case${total === 1 ? "" : "s"}, ${Math.round(options.durationMs)} ms)${updated}\n`;
}

/** One testsuite per test file, one testcase per case; a failure lists every difference. */
function formatJunit(results: readonly CaseResult[], options: FormatTestReportOptions): string {
  const files = [...new Set(results.map((result) => result.file))];
  const { total, failed } = counts(results);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = files.map((file) => {
    const cases = results.filter((result) => result.file === file);
    const failures = cases.filter((result) => result.status === "failed").length;
    const time = cases.reduce((sum, result) => sum + result.duration_ms, 0);
    const body = cases.map((result) => {
      const open = `    <testcase classname="${escapeXmlAttribute(result.integration)}" name="${escapeXmlAttribute(result.name)}" time="${seconds(result.duration_ms)}"`;
      if (result.status === "passed") return `${open}/>`;
      const text = [
        ...result.differences.map((d) => `${d.path}: ${d.message}`),
        ...result.producedBy.map((cause) => `from ${cause}`),
      ].join("\n");
      const message = result.differences[0]
        ? `${result.differences[0].path}: ${result.differences[0].message}`
        : "failed";
      return `${open}>\n      <failure message="${escapeXmlAttribute(message)}" type="expectation">${escapeXml(text)}</failure>\n    </testcase>`;
    });
    return [
      `  <testsuite name="${escapeXmlAttribute(file)}" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds(time)}">`,
      ...body,
      "  </testsuite>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="bass test" tests="${total}" failures="${failed}" errors="0" time="${seconds(options.durationMs)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}

import { isAbsolute, posix } from "node:path";
import { pathToFileURL } from "node:url";
import { hasFailures, type Issue, type Severity } from "../../definition/issue.js";
import { type RuleId, ruleHelp, rules } from "../../definition/rules.js";
import type { FormatIssueReportOptions } from "./report-options.js";

export type FormatSarifOptions = Pick<FormatIssueReportOptions, "toolVersion">;

/** A SARIF 2.1.0 log with one run: for code scanning (GitHub, Azure DevOps, IDE viewers). */
export function formatSarif(issues: readonly Issue[], options: FormatSarifOptions): string {
  // Catalog order, so a rule keeps its place from one run to the next.
  const used = (Object.keys(rules) as RuleId[]).filter((id) => issues.some((issue) => issue.rule === id));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "bass",
            version: options.toolVersion,
            rules: used.map((id) => ({
              id,
              shortDescription: { text: rules[id] },
              fullDescription: { text: ruleHelp[id].description },
              help: { text: ruleHelp[id].help },
              defaultConfiguration: { level: defaultLevel(id, issues) },
            })),
          },
        },
        // Columns count UTF-16 code units, as editors and the yaml parser do.
        columnKind: "utf16CodeUnits",
        results: issues.map((issue) => ({
          ruleId: issue.rule,
          ruleIndex: used.indexOf(issue.rule),
          level: issue.severity,
          message: { text: issue.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(issue.file),
                region: { startLine: issue.line, startColumn: issue.column },
              },
            },
          ],
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

// The catalog has no severity of its own; each result carries its level, and the rule's default is the
// most severe level it was reported at.
function defaultLevel(id: RuleId, issues: readonly Issue[]): Severity {
  return hasFailures(issues.filter((issue) => issue.rule === id)) ? "error" : "warning";
}

// Code scanning resolves relative URIs against the checkout (%SRCROOT%); a path given as absolute can
// only be a file: URI. Segments are percent-encoded because a URI, unlike a path, cannot hold a space or `#`.
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (isAbsolute(file)) return { uri: pathToFileURL(file).href };
  const path = posix.normalize(file.replaceAll("\\", "/"));
  return { uri: path.split("/").map(encodeURIComponent).join("/"), uriBaseId: "%SRCROOT%" };
}

/** What every format of validate's report may use; each format picks its part. */
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

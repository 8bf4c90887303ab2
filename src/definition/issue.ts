import type { SourcePosition } from "../errors.js";
import type { RuleId } from "./rules.js";

export type Severity = "error" | "warning";

/** One finding of `validate`: expected problems are data, never thrown. */
export interface Issue extends SourcePosition {
  severity: Severity;
  /** A stable id such as `cell-syntax`; `rules.ts` lists them all. */
  rule: RuleId;
  message: string;
  /** The finding's place holds a secret: formats show no source text around it (no code frame). */
  sensitive?: true;
  /** Where in the file's value it is, when what it blocks depends on that (`env-unset`). */
  at?: readonly (string | number)[];
}

// One collator for every comparison: the order of localeCompare, without setting up a collation per call.
// Made on first use: setting one up is a noticeable part of a start that sorts nothing.
let collator: Intl.Collator | undefined;

/** Orders texts as `localeCompare` does. */
export function compareText(a: string, b: string): number {
  collator ??= new Intl.Collator();
  return collator.compare(a, b);
}

/** Orders issues by file, then line, then column. */
export function compareIssues(a: Issue, b: Issue): number {
  return compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.rule, b.rule);
}

/** Whether any issue is an error, or with `strict` any issue at all. */
export function hasFailures(issues: readonly Issue[], strict = false): boolean {
  return issues.some((issue) => strict || issue.severity === "error");
}

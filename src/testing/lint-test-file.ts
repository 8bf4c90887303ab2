import type { Issue } from "../definition/issue.js";
import { type LoadedFile, type LoadOptions, loadFile } from "../definition/load.js";
import { isMatcher, matcherTypes } from "./matchers.js";
import type { TestFile } from "./test-file.js";

/** A test file as `validate` and `test` read it: its schema findings and the rules across its cases. */
export function loadTestFile(
  path: string,
  options: LoadOptions,
): { file: LoadedFile<TestFile>; issues: Issue[] } {
  const file = loadFile<TestFile>(path, "test", options);
  return { file, issues: [...file.issues, ...lintTestFile(file)] };
}

/** One source of input and of answers per case, and case names unique in the file (JUnit names them). */
function lintTestFile(file: LoadedFile<TestFile>): Issue[] {
  const cases = file.issues.length === 0 ? file.value.cases : [];
  const issues: Issue[] = [];
  const report = (rule: Issue["rule"], message: string, at: (string | number)[]) =>
    issues.push({ file: file.file, ...file.source.locate(at), severity: "error", rule, message });
  const names = new Set<string>();
  for (const [index, testCase] of cases.entries()) {
    const requests = (["input", "input_file", "request", "request_file"] as const).filter(
      (key) => testCase[key] !== undefined,
    );
    if (requests.length > 1)
      report("case-source", `a case has one of ${requests.join(", ")}, not more`, ["cases", index]);
    if (testCase.mocks !== undefined && testCase.cassette !== undefined)
      report("case-source", "a case has mocks or cassette, not both", ["cases", index]);
    if (names.has(testCase.name))
      report("duplicate-case", `two cases are named ${JSON.stringify(testCase.name)}`, [
        "cases",
        index,
        "name",
      ]);
    names.add(testCase.name);
    for (const [at, problem] of matcherProblems(testCase.expect, ["cases", index, "expect"]))
      report("test-matcher", problem, at);
  }
  return issues;
}

/** Matchers that cannot match: a `$type` no value has, a `$match` that is no regular expression. */
function matcherProblems(value: unknown, at: (string | number)[]): [(string | number)[], string][] {
  if (value === null || typeof value !== "object") return [];
  if (isMatcher(value)) {
    if ("$type" in value && !(matcherTypes as readonly string[]).includes(String(value.$type)))
      return [[[...at, "$type"], `$type must be one of ${matcherTypes.join(", ")}`]];
    if ("$match" in value) {
      try {
        new RegExp(String(value.$match), "u");
      } catch (error) {
        return [[[...at, "$match"], `$match is not a regular expression: ${(error as Error).message}`]];
      }
    }
    return [];
  }
  return Object.entries(value).flatMap(([key, item]) =>
    matcherProblems(item, [...at, Array.isArray(value) ? Number(key) : key]),
  );
}

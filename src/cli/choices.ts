// The values options choose from, in a module of their own: the command line is built from them before
// any formatter or reporter is loaded (`bass --help` starts fast).

/** What `bass validate --format` takes. */
export const issueFormats = ["text", "json", "sarif", "junit", "github"] as const;
export type IssueFormat = (typeof issueFormats)[number];

/** What `bass test --reporter` takes. */
export const testReporters = ["text", "json", "junit"] as const;
export type TestReporter = (typeof testReporters)[number];

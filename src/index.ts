export { main } from "./cli/main.js";
export type { Issue, Severity } from "./definition/issue.js";
export { lintProject } from "./definition/lint/lint.js";
export { type LoadedDefinition, type LoadedProject, loadFile, loadProject } from "./definition/load.js";
export { type RuleId, rules } from "./definition/rules.js";
export type * from "./definition/types.js";
export { BassError, type BassErrorCode, isBassError } from "./errors.js";

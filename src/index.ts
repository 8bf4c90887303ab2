export type {
  Adapter,
  AdapterCallContext,
  AdapterRequest,
  AdapterResolver,
  AdapterResponse,
} from "./adapters/adapter.js";
export { createHttpAdapter } from "./adapters/http.js";
export { startSystems } from "./adapters/systems.js";
export type { Issue, Severity } from "./definition/issue.js";
export { lintProject } from "./definition/lint/lint.js";
export { type LoadedDefinition, type LoadedProject, loadFile, loadProject } from "./definition/load.js";
export { type RuleId, rules } from "./definition/rules.js";
export type * from "./definition/types.js";
export { type CompiledIntegration, compileIntegration } from "./engine/compile.js";
export { createHistoryStore, type HistoryStore } from "./engine/history.js";
export type { Item, RunRecord } from "./engine/record.js";
export {
  type RunInput,
  type RunOptions,
  type RunResult,
  runIntegration,
  startIntegration,
} from "./engine/run.js";
export { BassError, type BassErrorCode, isBassError } from "./errors.js";
export { type Mockcore, startMockcore } from "./mockcore/server.js";
export { createHandler, type ServeRequest } from "./serve/handler.js";

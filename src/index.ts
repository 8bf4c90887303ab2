export type {
  Adapter,
  AdapterCallContext,
  AdapterRequest,
  AdapterResolver,
  AdapterResponse,
} from "./adapters/adapter.js";
export { createHttpAdapter } from "./adapters/http.js";
export type { Issue, Severity } from "./definition/issue.js";
export { lintProject } from "./definition/lint/lint.js";
export { type LoadedDefinition, type LoadedProject, loadFile, loadProject } from "./definition/load.js";
export { type RuleId, rules } from "./definition/rules.js";
export type * from "./definition/types.js";
export { type CompiledIntegration, compileIntegration } from "./engine/compile.js";
export { createEngine, type Engine } from "./engine/engine.js";
export {
  type RunOptions,
  type RunResult,
  runIntegration,
  startIntegration,
} from "./engine/run.js";
export type { Item, RunInput, RunRecord } from "./engine/types.js";
export { BassError, type BassErrorCode, isBassError } from "./errors.js";
export { createHistoryStore, type HistoryStore } from "./history/store.js";
export { type Mockcore, startMockcore } from "./mockcore/server.js";
export { type AdapterChoice, createProjectAdapters, type ProjectAdapters } from "./project/adapters.js";
export { openHistory, openProject, type Project, type RunLimits } from "./project/open.js";
export { startSystems } from "./project/systems.js";
export { createServeApp, type ServeApp } from "./serve/app.js";
export type { ServeRequest } from "./serve/context.js";
export { createHandler } from "./serve/handler.js";

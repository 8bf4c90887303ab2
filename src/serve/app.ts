import { resolve } from "node:path";
import type { Issue } from "../definition/issue.js";
import { lintProject } from "../definition/lint/lint.js";
import { type Env, type LoadedProject, loadProject } from "../definition/load.js";
import type { Definition, ProjectConfig, ServeAuth } from "../definition/types.js";
import { isBlocking } from "../definition/usable.js";
import { type CompiledIntegration, compileIntegration } from "../engine/compile.js";
import { compileRequestSchemas, type RequestSchemaValidator } from "./request-schema.js";
import { createRouter, type Router } from "./routes.js";

/** Serve's settings with the defaults of SPEC §3. */
export interface ServeSettings {
  host: string;
  port: number;
  auth: ServeAuth;
  bodyLimitBytes: number;
  maxConcurrentRuns: number;
  idempotencyTtlSeconds: number;
  cellTimeoutMs: number;
  runTimeoutMs: number;
}

/** One loaded set of integrations: what a request is routed to. `--watch` swaps it whole. */
export interface ServedSet {
  projectDir: string;
  config: ProjectConfig;
  settings: ServeSettings;
  definitions: Definition[];
  router: Router<CompiledIntegration>;
  requestSchemas: ReadonlyMap<string, RequestSchemaValidator>;
  /** Values from the environment, masked by value in every record. */
  secrets: string[];
  /** Warnings of the last load (errors keep a set from loading). */
  warnings: Issue[];
}

export interface LoadServedSetOptions {
  cwd: string;
  env: Env;
  projectDir?: string | undefined;
}

export type LoadedSet =
  | { ok: true; set: ServedSet }
  | { ok: false; issues: Issue[]; project: LoadedProject | undefined };

/** Loads, validates and compiles the project's integrations; a set with a blocking finding is not loaded. */
export function loadServedSet(options: LoadServedSetOptions): LoadedSet {
  const project = loadProject({ cwd: options.cwd, env: options.env, projectDir: options.projectDir });
  const issues = lintProject(project);
  if (issues.some(isBlocking)) return { ok: false, issues: issues.filter(isBlocking), project };
  const served = project.definitions.filter(
    (loaded) => loaded.value.active !== false && (loaded.value.endpoints ?? []).length > 0,
  );
  const compiled = served.map((loaded) => compileIntegration(loaded));
  const routes = compiled.flatMap((integration) =>
    (integration.definition.endpoints ?? []).map((endpoint) => ({
      method: endpoint.method,
      path: endpoint.path,
      target: integration,
    })),
  );
  const config = project.config.value;
  const secrets = [...project.config.secrets, ...project.definitions.flatMap((loaded) => loaded.secrets)];
  return {
    ok: true,
    set: {
      projectDir: project.dir,
      config,
      settings: serveSettings(config),
      definitions: served.map((loaded) => loaded.value),
      router: createRouter(routes),
      requestSchemas: compileRequestSchemas(
        served.map((loaded) => loaded.value),
        secrets,
      ),
      secrets,
      warnings: issues,
    },
  };
}

/** The serve and limits settings of a project file, with the defaults of SPEC §3. */
export function serveSettings(config: ProjectConfig): ServeSettings {
  const serve = config.serve ?? {};
  return {
    host: serve.host ?? "127.0.0.1",
    port: serve.port ?? 3000,
    auth: serve.auth ?? { type: "none" },
    bodyLimitBytes: serve.body_limit_bytes ?? 1048576,
    maxConcurrentRuns: serve.max_concurrent_runs ?? 64,
    idempotencyTtlSeconds: serve.idempotency_ttl_s ?? 86400,
    cellTimeoutMs: config.limits?.cell_timeout_ms ?? 1000,
    runTimeoutMs: config.limits?.run_timeout_ms ?? 30000,
  };
}

/** Where serve keeps what must survive a restart, next to the run history. */
export function idempotencyDir(set: ServedSet): string {
  return resolve(set.projectDir, ".bass", "idempotency");
}

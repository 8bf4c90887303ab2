import { resolve } from "node:path";
import type { Issue } from "../definition/issue.js";
import type { Env } from "../definition/load.js";
import type { Definition, ProjectConfig, ServeAuth } from "../definition/types.js";
import type { CompiledIntegration } from "../engine/compile.js";
import type { Engine } from "../engine/engine.js";
import { isBassError } from "../errors.js";
import { workerCount } from "../pool/worker-count.js";
import { openProject, type Project } from "../project/open.js";
import { brokenFiles, isBlocking, issuesOf } from "../project/usable.js";
import { createBodyCompiler, createParamsCompiler, type RequestSchemaValidator } from "./request-schema.js";
import { createRouter, type Route, type Router } from "./routes.js";

/** Serve's settings with the defaults of the project file's reference. */
export interface ServeSettings {
  host: string;
  port: number;
  auth: ServeAuth;
  bodyLimitBytes: number;
  maxConcurrentRuns: number;
  idempotencyTtlSeconds: number;
  /** Worker threads that run the integrations; 0 runs them on the HTTP thread. */
  workers: number;
  allowedHosts: string[];
  allowedOrigins: string[];
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  maxConnections: number;
}

/** What an endpoint's route leads to: its integration, and the check of its query when it declares `params`. */
export interface EndpointTarget {
  integration: CompiledIntegration;
  checkParams: RequestSchemaValidator | undefined;
}

/** One loaded set of integrations: what a request is routed to. `--watch` swaps it whole. */
export interface ServedSet {
  /** The project as opened: its folder, config, secrets (masked by value in every record) and run limits. */
  project: Project;
  settings: ServeSettings;
  definitions: Definition[];
  router: Router<EndpointTarget>;
  requestSchemas: ReadonlyMap<string, RequestSchemaValidator>;
  /** Warnings of the last load. */
  warnings: Issue[];
  /** Definition files left out for findings of their own: health says `degraded` while there are any. */
  broken: string[];
  /** The blocking findings of the broken files. */
  brokenIssues: Issue[];
}

export interface LoadServedSetOptions {
  cwd: string;
  env: Env;
  projectDir?: string | undefined;
  /** The process's engine (see OpenProjectOptions), shared by every set a reload loads. */
  engine?: Engine | undefined;
}

export type LoadedSet = { ok: true; set: ServedSet } | { ok: false; issues: Issue[] };

/**
 * Loads, validates and compiles the project's integrations. A blocking finding in the project file stops
 * the load; a definition with one of its own is left out (`broken`), and the others are served.
 */
export async function loadServedSet(options: LoadServedSetOptions): Promise<LoadedSet> {
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.projectDir,
    engine: options.engine,
    requestSchemas: true,
    cache: true,
  });
  const blocking = issuesOf(project.issues, [project.file.file]).filter(isBlocking);
  if (blocking.length) return { ok: false, issues: blocking };
  const broken = brokenFiles(project.definitions, project.issues);
  const served = project.definitions.filter(
    (loaded) =>
      !broken.includes(loaded.file) &&
      loaded.value.active !== false &&
      loaded.value.http_api !== false &&
      (loaded.value.endpoints ?? []).length > 0,
  );
  const compileParams = createParamsCompiler(project.secrets);
  const compileBody = createBodyCompiler(project.secrets);
  const routes: Route<EndpointTarget>[] = [];
  const requestSchemas = new Map<string, RequestSchemaValidator>();
  const definitions: Definition[] = [];
  const compileIssues: Issue[] = [];
  for (const loaded of served) {
    try {
      const integration = project.compile(loaded);
      const own = (loaded.value.endpoints ?? []).map((endpoint) => ({
        method: endpoint.method,
        path: endpoint.path,
        target: { integration, checkParams: compileParams(loaded.value, endpoint) },
      }));
      const body = compileBody(loaded.value);
      routes.push(...own);
      if (body) requestSchemas.set(loaded.value.name, body);
      definitions.push(loaded.value);
    } catch (error) {
      // A schema ajv cannot compile where lint could not tell (a $ref to another document): the
      // definition is left out, as one with a finding of its own.
      if (!isBassError(error) || error.code !== "DEFINITION_INVALID") throw error;
      broken.push(loaded.file);
      compileIssues.push({
        file: loaded.file,
        line: 1,
        column: 1,
        severity: "error",
        rule: "request-schema",
        message: error.message,
      });
    }
  }
  return {
    ok: true,
    set: {
      project,
      settings: serveSettings(project.config),
      definitions,
      router: createRouter(routes),
      requestSchemas,
      warnings: project.issues.filter((issue) => !isBlocking(issue)),
      broken,
      brokenIssues: [...issuesOf(project.issues, broken).filter(isBlocking), ...compileIssues],
    },
  };
}

/** The serve settings of a project file, with the defaults of the project file's reference. */
export function serveSettings(config: ProjectConfig): ServeSettings {
  const serve = config.serve ?? {};
  return {
    host: serve.host ?? "127.0.0.1",
    port: serve.port ?? 3000,
    auth: serve.auth ?? { type: "none" },
    bodyLimitBytes: serve.body_limit_bytes ?? 1048576,
    maxConcurrentRuns: serve.max_concurrent_runs ?? 64,
    idempotencyTtlSeconds: serve.idempotency_ttl_s ?? 86400,
    workers: workerCount(config),
    allowedHosts: serve.allowed_hosts ?? [],
    allowedOrigins: serve.allowed_origins ?? [],
    requestTimeoutMs: serve.request_timeout_ms ?? 30_000,
    headersTimeoutMs: serve.headers_timeout_ms ?? 10_000,
    maxConnections: serve.max_connections ?? 512,
  };
}

/** Where serve keeps what must survive a restart, next to the run history. */
export function idempotencyDir(set: ServedSet): string {
  return resolve(set.project.dir, ".bass", "idempotency");
}

import type { CompiledIntegration } from "../engine/compile.js";
import { isRunId } from "../engine/run-id.js";
import type { RunInput, RunStatus } from "../engine/types.js";
import { findRerun } from "../history/rerun-input.js";
import { promoteRun } from "../testing/promote.js";
import type { HandledResponse, ServeContext } from "./context.js";
import { createOpenApiDocument } from "./openapi.js";
import { createProblem, problemResponse } from "./problem.js";
import type { ServedSet } from "./served-set.js";
import type { RequestTarget } from "./target.js";

const statuses = new Set<string>(["success", "failure", "running"]);

/** A run to run again: what the admin route found, for the handler to run in one of its slots. */
export interface RerunJob {
  integration: CompiledIntegration;
  input: RunInput;
  /** The run id it runs again. */
  of: string;
}

type AdminResponse = Omit<HandledResponse, "logPath">;
type RunAgain = (rerun: RerunJob) => Promise<HandledResponse>;

/**
 * The admin routes, behind serve's auth: health, runs (a page of them, or one, masked), a run as a test
 * case, re-runs, the live stream of runs, the integrations, the OpenAPI document.
 */
export async function handleAdmin(
  url: RequestTarget,
  /** The request's method, and its Host: the OpenAPI document's server is where the client found it. */
  { method, host }: { method: string; host: string | undefined },
  set: ServedSet,
  context: ServeContext,
  runAgain: RunAgain,
): Promise<AdminResponse> {
  const path = url.pathname.replace(/\/+$/, "");
  // The page itself was answered before auth unless it is not built, or was asked for with another method.
  if (path === "/_bass")
    return method === "GET" || method === "HEAD"
      ? problemResponse(createProblem(404, pageMissing))
      : problemResponse(createProblem(405, `${url.pathname} answers GET only`), { allow: "GET" });
  const run = /^\/_bass\/runs\/([^/]+)(?:\/(case|rerun))?$/.exec(path);
  const file = /^\/_bass\/runs\/([^/]+)\/files\/([^/]+)$/.exec(path);
  if (run?.[2] === "rerun") {
    if (method !== "POST")
      return problemResponse(createProblem(405, `${url.pathname} answers POST only`), { allow: "POST" });
    return rerun(run[1] as string, set, context, runAgain);
  }
  const routes: Record<string, () => AdminResponse | Promise<AdminResponse>> = {
    "/_bass/health": () => json(health(set, context)),
    "/_bass/openapi.json": () =>
      json(
        createOpenApiDocument(set.definitions, {
          title: "bass",
          auth: set.settings.auth,
          serverUrl: host ? `http://${host}` : undefined,
        }),
      ),
    "/_bass/runs": () => listRuns(url, context),
    "/_bass/events": () => ({
      status: 200,
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
      body: "",
      stream: (sink) => context.events.subscribe(sink),
    }),
    "/_bass/integrations": () => json(integrationsOf(set)),
  };
  const route =
    routes[path] ??
    (run ? () => showRun(run[1] as string, run[2] === "case", context) : undefined) ??
    (file ? () => runFile(file[1] as string, decodeName(file[2] as string), context) : undefined);
  if (!route) return problemResponse(createProblem(404, `no admin route at ${url.pathname}`));
  if (method !== "GET")
    return problemResponse(createProblem(405, `${url.pathname} answers GET only`), { allow: "GET" });
  return route();
}

const pageMissing =
  "this copy of bass has no run history page: it is made by the build (npm run build in bass's folder)";

/** A page of runs, newest first: `before` a run id for the next page, `q` a text the record holds. */
async function listRuns(url: RequestTarget, context: ServeContext): Promise<AdminResponse> {
  const status = url.searchParams.get("status") ?? undefined;
  if (status !== undefined && !statuses.has(status)) {
    return problemResponse(createProblem(400, "status must be success, failure or running"));
  }
  const limit = Number(url.searchParams.get("limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    return problemResponse(createProblem(400, "limit must be a whole number from 1 to 1000"));
  const before = url.searchParams.get("before") ?? undefined;
  if (before !== undefined && !isRunId(before))
    return problemResponse(createProblem(400, "before must be a run id"));
  const runs = await context.history.list({
    integration: url.searchParams.get("integration") || undefined,
    status: status as RunStatus | undefined,
    label: url.searchParams.get("label") || undefined,
    text: url.searchParams.get("q") || undefined,
    before,
    limit,
  });
  return json(runs);
}

/** One run's masked record, or (`case`) the test case `bass history promote` makes of it, as YAML. */
async function showRun(id: string, asCase: boolean, context: ServeContext): Promise<AdminResponse> {
  // A run id is checked for its exact shape before it is looked up: no path escape through it.
  const record = isRunId(id) ? await context.history.read(id) : undefined;
  if (!record) return problemResponse(createProblem(404, "no run with this id"));
  if (!asCase) return json(record);
  if (record.status === "running")
    return problemResponse(
      createProblem(409, "the run is still running; it becomes a test case once it has ended"),
    );
  const { stringify } = await import("../yaml-text.js");
  return {
    status: 200,
    headers: {
      "content-type": "application/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${record.integration}.${record.id}.test.yaml"`,
    },
    body: stringify({ integration: record.integration, cases: [promoteRun(record)] }),
  };
}

/**
 * One of a run's kept files, as a download: never shown in the page's origin, whatever its type says,
 * so that an uploaded HTML file cannot run there.
 */
async function runFile(id: string, name: string | undefined, context: ServeContext): Promise<AdminResponse> {
  const record = isRunId(id) && name !== undefined ? await context.history.read(id) : undefined;
  const info = record?.files?.find((kept) => kept.name === name && kept.kept !== false);
  const bytes = info && (await context.history.files?.read(id, info.name));
  if (!info || !bytes) return problemResponse(createProblem(404, "this run kept no file of this name"));
  return {
    status: 200,
    headers: {
      "content-type": info.type || "application/octet-stream",
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(info.name)}`,
      "content-security-policy": "sandbox",
      "x-content-type-options": "nosniff",
    },
    body: bytes,
  };
}

function decodeName(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Runs a recorded run again: with its request as it came when serve kept it sealed, else with the
 * record's, whose masked fields the answer names. The project's systems answer as configured now, and
 * the request must still pass the endpoint's request_schema.
 */
async function rerun(
  id: string,
  set: ServedSet,
  context: ServeContext,
  runAgain: RunAgain,
): Promise<AdminResponse> {
  const found = isRunId(id) ? await findRerun(context.history, id, async () => context.sealer) : undefined;
  if (!found) return problemResponse(createProblem(404, "no run with this id"));
  const { record, request } = found;
  if (!request)
    return problemResponse(
      createProblem(409, `run ${id} has no request to run again: it ended before it had one`),
    );
  const integration = runnable(set, record.integration);
  if (!integration)
    return problemResponse(
      createProblem(
        409,
        `integration ${record.integration} is not served now: it is gone, broken or inactive`,
      ),
    );
  const errors = set.requestSchemas.get(integration.name)?.(request.input.payload) ?? [];
  if (errors.length)
    return problemResponse(
      createProblem(400, "the run's request does not match the endpoint's request_schema now", errors),
    );
  const answer = await runAgain({ integration, input: request.input, of: id });
  if (!answer.runId) return answer;
  return json({ run_id: answer.runId, status: answer.status, exact: request.exact, masked: request.masked });
}

/** The served set's integration of that name, compiled, unless it is broken or inactive. */
function runnable(set: ServedSet, name: string): CompiledIntegration | undefined {
  const loaded = set.project.definitions.find((candidate) => candidate.value.name === name);
  if (!loaded || set.broken.includes(loaded.file) || loaded.value.active === false) return undefined;
  return set.project.compile(loaded);
}

/** The project's integrations, for the page's filter: name, file, endpoints, and whether each is served. */
function integrationsOf(set: ServedSet) {
  return set.project.definitions.map(({ file, value }) => ({
    name: value.name,
    file,
    endpoints: (value.endpoints ?? []).map(({ method, path }) => ({ method, path })),
    broken: set.broken.includes(file),
    active: value.active !== false,
  }));
}

function json(value: unknown): AdminResponse {
  return {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(value),
  };
}

/** serve's health: `degraded`, with the files, while definitions are left out for their findings. */
function health(set: ServedSet, context: ServeContext) {
  const { broken } = set;
  return {
    status: broken.length ? "degraded" : "ok",
    // The folder the page's "Copy as bass run" runs in (--project).
    project: set.project.dir,
    integrations: set.definitions.length,
    active_runs: context.limiter.active,
    ...(broken.length ? { broken } : {}),
  };
}

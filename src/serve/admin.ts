import type { RunStatus } from "../engine/record.js";
import { isRunId } from "../engine/run-id.js";
import type { ServeContext } from "./context.js";
import { createOpenApiDocument } from "./openapi.js";
import { createProblem, problemResponse, type ServeResponse } from "./problem.js";
import type { ServedSet } from "./served-set.js";
import type { RequestTarget } from "./target.js";

const statuses = new Set<string>(["success", "failure", "running"]);

/** The admin routes of SPEC §7, behind the same auth: health, runs, one run (masked), the OpenAPI document. */
export async function handleAdmin(
  url: RequestTarget,
  method: string,
  set: ServedSet,
  context: ServeContext,
): Promise<ServeResponse> {
  const path = url.pathname.replace(/\/+$/, "");
  const known =
    path === "/_bass/health" ||
    path === "/_bass/runs" ||
    path === "/_bass/openapi.json" ||
    path.startsWith("/_bass/runs/");
  if (!known) return problemResponse(createProblem(404, `no admin route at ${url.pathname}`));
  if (method !== "GET")
    return problemResponse(createProblem(405, `${url.pathname} answers GET only`), { allow: "GET" });

  if (path === "/_bass/health") return json(health(set, context));
  if (path === "/_bass/openapi.json")
    return json(createOpenApiDocument(set.definitions, { title: "bass", auth: set.settings.auth }));
  if (path === "/_bass/runs") {
    const status = url.searchParams.get("status") ?? undefined;
    if (status !== undefined && !statuses.has(status)) {
      return problemResponse(createProblem(400, "status must be success, failure or running"));
    }
    const limit = Number(url.searchParams.get("limit") ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      return problemResponse(createProblem(400, "limit must be a whole number from 1 to 1000"));
    const runs = await context.history.list({
      integration: url.searchParams.get("integration") ?? undefined,
      status: status as RunStatus | undefined,
      label: url.searchParams.get("label") ?? undefined,
      limit,
    });
    return json(runs);
  }
  // A run id is checked for its exact shape before it is looked up: no path escape through it.
  const id = path.slice("/_bass/runs/".length);
  const record = isRunId(id) ? await context.history.read(id) : undefined;
  return record ? json(record) : problemResponse(createProblem(404, "no run with this id"));
}

function json(value: unknown): ServeResponse {
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
    integrations: set.definitions.length,
    active_runs: context.limiter.active,
    ...(broken.length ? { broken } : {}),
  };
}

import { createHash } from "node:crypto";
import type { CompiledIntegration } from "../engine/compile.js";
import type { RunOptions } from "../engine/run.js";
import type { OutputData, RunInput } from "../engine/types.js";
import { setOwn } from "../objects.js";
import { pythonTask } from "../pool/python-tasks.js";
import type { RunStarted } from "../runner/messages.js";
import { handleAdmin, type RerunJob } from "./admin.js";
import { userOf } from "./auth.js";
import type { HandledResponse, ServeContext, ServeRequest } from "./context.js";
import { checkHost, checkOrigin, type EdgeRefusal, type EdgeRules } from "./edge.js";
import {
  type IdempotencyDecision,
  isIdempotencyKey,
  requestFingerprint,
  type StoredResponse,
} from "./idempotency.js";
import {
  createErrorLog,
  createProblem,
  hasNoBody,
  type ProblemError,
  problemFor,
  problemResponse,
  type ServeResponse,
} from "./problem.js";
import { parseQuery } from "./query.js";
import { readRequestBody } from "./request-body.js";
import type { RouteMatch } from "./routes.js";
import type { RunScheduled } from "./schedules.js";
import type { EndpointTarget, ServedSet } from "./served-set.js";
import { parseRequestTarget, type RequestTarget } from "./target.js";
import { uiFile } from "./ui-files.js";

const idempotentMethods = new Set(["POST", "PUT", "PATCH"]);
/** The system was not reached, or its outcome is unknown: a retry with the same key must run again. */
const unkeptStatuses = new Set([502, 503, 504]);

/** Request in, response out, no sockets: the one place where serve's errors become problem responses. */
export function createHandler(context: ServeContext): (request: ServeRequest) => Promise<HandledResponse> {
  const logError =
    context.logError ??
    createErrorLog(
      (text) => process.stderr.write(text),
      () => context.current().set.project.secrets,
    );
  return async (request) => {
    const url = parseRequestTarget(request.url);
    if (!url) {
      return {
        ...problemResponse(createProblem(400, "the request target is neither a path nor an absolute URL")),
        logPath: request.url,
      };
    }
    try {
      return await handle(context, request, url);
    } catch (error) {
      // The run engine turns a definition's own errors into outputs; anything here is bass's own fault.
      return { ...problemFor(error, logError), logPath: url.pathname };
    }
  };
}

async function handle(
  context: ServeContext,
  request: ServeRequest,
  url: RequestTarget,
): Promise<HandledResponse> {
  const pathname = url.pathname;
  // One set for the whole request, though --watch may swap it while the request waits.
  const served = context.current();
  const { set } = served;

  // The edge first: a request for another host, or a cross-site post, reaches nothing.
  const refused = checkEdge(context, request, set);
  if (refused) return answer(pathname, refused.status, refused.detail);

  // Match the method and path, then check auth (docs/behaviour.md#bass-serve).
  const isAdmin = pathname === "/_bass" || pathname.startsWith("/_bass/");
  // The run history page's own files hold no data: they need no credential (the page asks for one).
  const page =
    isAdmin && (request.method === "GET" || request.method === "HEAD") ? uiFile(pathname) : undefined;
  if (page) return { ...page, logPath: pathname };
  const match = isAdmin ? undefined : set.router.match(request.method, pathname);
  if (match?.kind === "not-found") return answer(pathname, 404, `no endpoint at ${pathname}`);
  if (match?.kind === "method-not-allowed") {
    return answer(pathname, 405, `${pathname} does not answer ${request.method}`, {
      allow: match.allow.join(", "),
    });
  }
  const credentials = header(request, "authorization");
  const scope = context.authenticate(credentials);
  if (scope === undefined) return unauthorized(pathname, set, credentials);
  if (!match) {
    const asked = { method: request.method, host: header(request, "host") };
    const admin = await handleAdmin(url, asked, set, context, (rerun) =>
      rerunInSlot(context, served, withCredentialOf(rerun, request, set, scope)),
    );
    return { ...admin, logPath: pathname };
  }
  return handleEndpoint(context, { request, url, match, served, scope });
}

/**
 * serve's 401: credentials given and wrong are told from missing ones, and a wrong bearer token is named
 * in the challenge (RFC 6750).
 */
function unauthorized(pathname: string, set: ServedSet, credentials: string | undefined): HandledResponse {
  if (!credentials)
    return answer(pathname, 401, "this server needs credentials: an Authorization header", {
      "www-authenticate": authChallenge(set),
    });
  const token = set.settings.auth.type === "bearer" && /^bearer\s/i.test(credentials);
  return answer(pathname, 401, "the credentials in the Authorization header are not valid", {
    "www-authenticate": `${authChallenge(set)}${token ? ', error="invalid_token"' : ""}`,
  });
}

/** The Host and Origin checks (docs/behaviour.md#bass-serve), with the rules of the set serving now. */
function checkEdge(context: ServeContext, request: ServeRequest, set: ServedSet): EdgeRefusal | undefined {
  const { settings } = set;
  const rules: EdgeRules = {
    boundHost: context.boundHost,
    allowedHosts: settings.allowedHosts,
    allowedOrigins: settings.allowedOrigins,
    auth: settings.auth,
  };
  const host = header(request, "host");
  return (
    checkHost(host, rules) ??
    checkOrigin(
      request.method,
      { host, origin: header(request, "origin"), fetchSite: header(request, "sec-fetch-site") },
      rules,
    )
  );
}

/** A request to one of the set's endpoints, matched and authenticated. */
interface EndpointRequest {
  request: ServeRequest;
  url: RequestTarget;
  match: Extract<RouteMatch<EndpointTarget>, { kind: "found" }>;
  served: ReturnType<ServeContext["current"]>;
  /** Its credential's scope: Idempotency-Keys are per credential. */
  scope: string;
  /** The Idempotency-Key as the run sees it, scoped to its caller; absent without one. */
  passedKey?: string | undefined;
}

/** Checks the body and the Idempotency-Key, then runs the endpoint's integration or answers for it. */
async function handleEndpoint(context: ServeContext, endpoint: EndpointRequest): Promise<HandledResponse> {
  const { request, url, match, served, scope } = endpoint;
  const { pathname } = url;
  const { set } = served;
  const body = await readRequestBody(request.body, {
    method: request.method,
    contentType: header(request, "content-type"),
    disposition: header(request, "content-disposition"),
  });
  if (!body.ok) return answer(pathname, body.status, body.detail);
  // Most requests have no query: its parser (URLSearchParams) is made only for one that does.
  const query = url.search === "" ? {} : parseQuery(url.searchParams);
  const paramErrors = match.target.checkParams?.(query) ?? [];
  if (paramErrors.length) {
    return answer(pathname, 400, "the query does not match the endpoint's params", {}, paramErrors);
  }
  const schemaErrors = set.requestSchemas.get(match.target.integration.name)?.(body.payload) ?? [];
  if (schemaErrors.length) {
    const detail = "the request body does not match the endpoint's request_schema";
    return answer(pathname, 400, detail, {}, schemaErrors);
  }

  const key = idempotentMethods.has(request.method) ? header(request, "idempotency-key") : undefined;
  const parsed = { payload: body.payload, query, files: body.files };
  if (key === undefined) return runInSlot(context, endpoint, parsed, undefined);
  if (!isIdempotencyKey(key))
    return answer(pathname, 400, "Idempotency-Key must be 1 to 64 visible characters");
  const caller = callerOf(scope, request);
  // A NUL cannot be in a key: no scope and key run into another's.
  const decision = await context.idempotency.begin(
    `${caller}\u0000${key}`,
    requestFingerprint(request.method, pathname, request.body),
  );
  if (decision.kind === "run")
    return runInSlot(context, { ...endpoint, passedKey: passedKey(caller, key) }, parsed, decision);
  return answerRepeat(decision, pathname);
}

/**
 * Whose Idempotency-Keys a request's are (docs/behaviour.md#bass-serve): its credential's, or under
 * `auth: none` its client's address (IPv4 written alike on an IPv6 socket).
 */
function callerOf(scope: string, request: ServeRequest): string {
  if (scope !== "none") return scope;
  return `client:${(request.remoteAddress ?? "").replace(/^::ffff:(?=\d+\.)/, "")}`;
}

/**
 * The key a run passes on to a system: the caller's own key behind a tag of the caller, so two callers'
 * same key are two keys there too, and a system that replays by key alone never gives one the other's
 * answer. The tag is stable across restarts, and names no credential.
 */
function passedKey(caller: string, key: string): string {
  return `${createHash("sha256").update(caller).digest("hex").slice(0, 16)}.${key}`;
}

/** The answer to a key seen before: the first answer again, byte for byte, or why the request cannot run now. */
function answerRepeat(
  decision: Exclude<IdempotencyDecision, { kind: "run" }>,
  pathname: string,
): HandledResponse {
  if (decision.kind === "in-progress")
    return answer(pathname, 409, "a request with this Idempotency-Key is still running");
  if (decision.kind === "mismatch")
    return answer(pathname, 422, "this Idempotency-Key was used with another request");
  if (decision.kind === "unreadable")
    return answer(
      pathname,
      503,
      "what this Idempotency-Key answered before cannot be read, so the request is not run again; the server's log names the file",
    );
  const { status, headers, body, logPath } = decision.response;
  return {
    status,
    headers: { ...headers, "idempotent-replayed": "true" },
    body: Buffer.from(body, "base64"),
    // The first answer's path, masked by its run: a masked value in the path stays out of the replay's log line too.
    logPath: logPath ?? pathname,
    replayed: true,
  };
}

/** A key's first run: what it answers is kept for the repeats. */
type FirstRun = Extract<IdempotencyDecision, { kind: "run" }>;

/** What a request gives its run besides its method, path and headers. */
interface ParsedRequest {
  payload: unknown;
  query: Record<string, string | string[]>;
  files?: RunInput["files"];
}

/** Runs the endpoint in one of the limiter's slots, or answers 503 when none is free. */
async function runInSlot(
  context: ServeContext,
  { request, url, match, served, scope, passedKey }: EndpointRequest,
  { payload, query, files }: ParsedRequest,
  first: FirstRun | undefined,
): Promise<HandledResponse> {
  const release = context.limiter.tryAcquire();
  if (!release) {
    first?.abandon();
    return answer(url.pathname, 503, "the server is running as many integrations as it may; try again", {
      "retry-after": "1",
    });
  }
  try {
    const headers = plainHeaders(request.headers);
    if (passedKey !== undefined) headers["idempotency-key"] = passedKey;
    const input = {
      payload,
      method: request.method,
      path: match.params,
      params: query,
      headers,
      fullpath: url.pathname + url.search,
      user: userOf(scope, header(request, "authorization")),
      ...(files ? { files } : {}),
    };
    const response = await runEndpoint(context, served, match.target.integration, input, release, {
      trigger: "http",
    });
    if (first) await keep(first, response);
    return response;
  } catch (error) {
    first?.abandon();
    release();
    throw error;
  }
}

/**
 * Keeps a key's first answer for its repeats, unless the system was not reached or the outcome there is
 * unknown (docs/behaviour.md#bass-serve): then the key is free again, and a retry runs.
 */
async function keep(first: FirstRun, response: HandledResponse): Promise<void> {
  if (unkeptStatuses.has(response.status) || response.retryable) first.abandon();
  else await first.complete(toStored(response, response.logPath));
}

/** A problem response of serve's own, logged under the request's path. */
function answer(
  logPath: string,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
  errors?: ProblemError[],
): HandledResponse {
  return { ...problemResponse(createProblem(status, detail, errors), headers), logPath };
}

/** Why a run runs: a request to its endpoint, or a re-run of an earlier run. */
type RunCause = Pick<RunOptions, "trigger" | "rerunOf">;

/**
 * A re-run goes with the credential of whoever asked for it: under bearer or basic auth the Authorization
 * header is serve's own, which the kept request leaves out and the record holds masked.
 */
function withCredentialOf(rerun: RerunJob, request: ServeRequest, set: ServedSet, scope: string): RerunJob {
  if (set.settings.auth.type === "none") return rerun;
  const headers = Object.fromEntries(
    Object.entries(rerun.input.headers ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
  );
  const authorization = header(request, "authorization");
  if (authorization !== undefined) headers.authorization = authorization;
  const user = userOf(scope, authorization);
  return { ...rerun, input: { ...rerun.input, headers, user } };
}

/**
 * Runs `rerun.integration` again with a recorded request, in one of the limiter's slots as a request's run,
 * with the set that answers the request that asked for it: the answer is the new run's, or serve's 503
 * when no slot is free.
 */
async function rerunInSlot(
  context: ServeContext,
  served: ReturnType<ServeContext["current"]>,
  rerun: RerunJob,
): Promise<HandledResponse> {
  const release = context.limiter.tryAcquire();
  if (!release)
    return answer("", 503, "the server is running as many integrations as it may; try again", {
      "retry-after": "1",
    });
  try {
    return await runEndpoint(context, served, rerun.integration, rerun.input, release, {
      trigger: "rerun",
      rerunOf: rerun.of,
    });
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A scheduled run, as a request's: in one of the limiter's slots (none free: this time is skipped, as a
 * busy server answers 503), with the set serving now; resolves when the run has ended.
 */
export function createScheduledRunner(context: ServeContext): RunScheduled {
  return async (integration, input) => {
    const release = context.limiter.tryAcquire();
    if (!release) return;
    let ended: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      ended = resolve;
    });
    try {
      await runEndpoint(
        context,
        context.current(),
        integration,
        input,
        () => {
          release();
          ended();
        },
        { trigger: "schedule" },
      );
    } catch (error) {
      release();
      throw error;
    }
    await done;
  };
}

/**
 * Runs the integration with the set's runner: its record comes back to be written here. An async run answers
 * 202 at once and releases its slot when it ends. A run whose thread ends while it runs (out of memory, say)
 * fails alone: it gets a record saying so, and a 500.
 */
async function runEndpoint(
  context: ServeContext,
  served: ReturnType<ServeContext["current"]>,
  integration: CompiledIntegration,
  input: RunInput,
  release: () => void,
  cause: RunCause,
): Promise<HandledResponse> {
  const { history } = context;
  const { runner, version, mockcoreUrl } = served.runs;
  let onAccepted: ((started: RunStarted) => void) | undefined;
  let startedId: string | undefined;
  const started = new Promise<RunStarted>((resolve) => {
    onAccepted = (start) => {
      startedId = start.runId;
      resolve(start);
    };
  });
  const task = { version, integration: integration.name, input, ...cause };
  const onStarted = integration.definition.run_async ? onAccepted : undefined;
  let ended = false;
  const finished = runner
    .run(
      { ...task, mockcoreUrl: mockcoreUrl() },
      onStarted,
      pythonTask(integration.definition, served.set.project),
    )
    // Whatever stops the run is its record and its answer: an async run's caller has its 202 already.
    .catch((error: unknown) => runner.failed(task, error, startedId))
    .then((result) => {
      ended = true;
      // A run its thread could not end has its request sealed here: it can be run again.
      const sealed = result.sealedRequest ?? context.keepRequest?.(result.runId, input);
      for (const child of result.childRecords ?? []) history.writeLine(child.runId, child.line);
      history.writeLine(result.runId, result.recordLine, sealed);
      return result;
    })
    .finally(release);
  const first = await Promise.race([started, finished]);
  // An async run answers 202 whichever comes first, its start or its end; the running record is written
  // only while the end's is not, since the later line of a run wins.
  const answerAccepted = (output: OutputData): HandledResponse => {
    const { status, headers, body } = fromOutput(output);
    // Where the client follows the run it started (RFC 9110's 202): its record, running or ended.
    headers.location ??= `/_bass/runs/${first.runId}`;
    return { status, headers, body, runId: first.runId, logPath: first.maskedPath };
  };
  if ("startedLine" in first) {
    if (!ended) history.writeLine(first.runId, first.startedLine, first.sealedRequest);
    return answerAccepted(first.accepted);
  }
  if (first.accepted) return answerAccepted(first.accepted);
  const { status, headers, body } = fromOutput(first.output, first.outputJson);
  return { status, headers, body, runId: first.runId, logPath: first.maskedPath, retryable: first.retryable };
}

/**
 * The run's output as docs/behaviour.md#bass-serve says it is sent: byte strings as they are, anything else as JSON (`json`,
 * the payload's text when the run has made it already).
 */
function fromOutput(output: OutputData, json?: string): ServeResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(output.headers)) headers[name.toLowerCase()] = String(value);
  // HTTP gives these no body: what the run's payload held stays in its record.
  if (hasNoBody(output.status)) return { status: output.status, headers, body: "" };
  if (output.payload instanceof Uint8Array) return { status: output.status, headers, body: output.payload };
  headers["content-type"] = "application/json; charset=utf-8";
  return { status: output.status, headers, body: json ?? JSON.stringify(output.payload ?? null) };
}

/** The answer as the idempotency store keeps it, sealed: exactly what was sent, unmasked. */
function toStored(response: ServeResponse, loggedPath: string): StoredResponse {
  const body = typeof response.body === "string" ? Buffer.from(response.body) : Buffer.from(response.body);
  // The path only: a repeat has the same path but may have another query, which its own run never masked.
  const logPath = loggedPath.split("?", 1)[0] ?? "";
  return { status: response.status, headers: response.headers, body: body.toString("base64"), logPath };
}

function header(request: ServeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function plainHeaders(headers: ServeRequest["headers"]): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    // setOwn: a header named `__proto__` is plain data, never the object's prototype.
    if (value !== undefined) setOwn(plain, name, Array.isArray(value) ? value.join(", ") : value);
  }
  return plain;
}

function authChallenge(set: ServedSet): string {
  return set.settings.auth.type === "basic" ? 'Basic realm="bass"' : 'Bearer realm="bass"';
}

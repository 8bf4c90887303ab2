import type { Definition, Endpoint, HttpMethod, ServeAuth } from "../definition/types.js";

export interface CreateOpenApiDocumentOptions {
  title?: string | undefined;
  version?: string | undefined;
  serverUrl?: string | undefined;
  /** serve's auth: the document's security scheme. */
  auth?: ServeAuth | undefined;
}

export type JsonSchema = Record<string, unknown> | boolean;

export interface OpenApiParameter {
  name: string;
  in: "query" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiHeader {
  description: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required: false; content: { "application/json": { schema: JsonSchema } } };
  responses: Record<string, OpenApiResponse>;
}

export type OpenApiPathItem = {
  parameters?: { name: string; in: "path"; required: true; schema: { type: "string" } }[];
} & { [method in Lowercase<HttpMethod>]?: OpenApiOperation };

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string };
  servers?: { url: string }[];
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes?: Record<string, { type: "http"; scheme: "bearer" | "basic" }>;
  };
  security: Record<string, string[]>[];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const methodOrder: readonly HttpMethod[] = ["GET", "PUT", "POST", "DELETE", "PATCH"];
const bodyMethods = new Set<HttpMethod>(["POST", "PUT", "PATCH"]);

/** The shapes every document shares: serve's own errors (docs/behaviour.md#bass-serve), a run's default failure (docs/reference.md#how-a-run-uses-these-keys), an async start (docs/behaviour.md#bass-serve). */
const componentSchemas: Record<string, JsonSchema> = {
  Problem: {
    type: "object",
    description: "RFC 9457 problem details: an error serve answered without running an integration.",
    required: ["type", "title", "status", "detail"],
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer", minimum: 400, maximum: 599 },
      detail: { type: "string" },
      errors: {
        type: "array",
        items: {
          type: "object",
          required: ["message"],
          properties: { pointer: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  RunFailure: {
    type: "object",
    description: "The output of a failed run when no hook set one.",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "run_id", "details"],
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          run_id: { type: "string" },
          details: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
  RunStarted: {
    type: "object",
    description: "An asynchronous integration has started; the run goes on in the background.",
    required: ["run_id", "status"],
    properties: { run_id: { type: "string" }, status: { const: "started" } },
  },
};

/**
 * The OpenAPI 3.1 document of what `bass serve` answers: every endpoint of every active integration.
 * A run's status is up to its hooks, so a synchronous operation lists 200 (the default) and, for
 * POST, 201; an asynchronous one lists 202. The first integration to claim a method and path has it,
 * as in the router.
 */
export function createOpenApiDocument(
  definitions: readonly Definition[],
  options: CreateOpenApiDocumentOptions = {},
): OpenApiDocument {
  const paths = pathsOf(
    definitions.filter((definition) => definition.active !== false),
    options.auth,
  );
  return {
    openapi: "3.1.0",
    info: { title: options.title ?? "bass", version: options.version ?? "0.0.0" },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths: Object.fromEntries(
      [...paths].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, item]) => [path, sortMethods(item)]),
    ),
    components: { schemas: structuredClone(componentSchemas), ...securitySchemes(options.auth) },
    // Under auth none, an empty requirement says so: every operation may be called without credentials.
    security: [options.auth && options.auth.type !== "none" ? { [options.auth.type]: [] } : {}],
  };
}

/** Each path with its operations; the first integration to claim a method and path has it. */
function pathsOf(served: readonly Definition[], auth: ServeAuth | undefined): Map<string, OpenApiPathItem> {
  const taken = new Set<string>();
  const paths = new Map<string, OpenApiPathItem>();
  for (const definition of served) {
    const endpoints = definition.endpoints ?? [];
    for (const endpoint of endpoints) {
      const path = endpoint.path.length > 1 ? endpoint.path.replace(/\/$/, "") : endpoint.path;
      const item = paths.get(path) ?? pathItem(path);
      paths.set(path, item);
      const method = endpoint.method.toLowerCase() as Lowercase<HttpMethod>;
      if (item[method] !== undefined) continue;
      const base = endpoints.length > 1 ? `${definition.name}.${method}` : definition.name;
      item[method] = operation(definition, endpoint, uniqueId(base, taken), auth);
    }
  }
  return paths;
}

/** The scheme of serve's auth, named as its type; none under `auth: none`. */
function securitySchemes(
  auth: ServeAuth | undefined,
): Pick<OpenApiDocument["components"], "securitySchemes"> {
  if (!auth || auth.type === "none") return {};
  return { securitySchemes: { [auth.type]: { type: "http", scheme: auth.type } } };
}

function pathItem(path: string): OpenApiPathItem {
  const names = [...path.matchAll(/\{([^}/]+)\}/g)].map((match) => match[1] as string);
  if (names.length === 0) return {};
  return {
    parameters: names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
  };
}

const json = (schema: JsonSchema) => ({ "application/json": { schema } });
const problem = { "application/problem+json": { schema: ref("Problem") } };

/** The Idempotency-Key a POST, PUT or PATCH may carry, as serve checks it. */
const idempotencyKey: OpenApiParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "A key of 1 to 64 visible characters: a request again with the same key and body gets the first answer again, without a new run.",
  schema: { type: "string", minLength: 1, maxLength: 64, pattern: "^[\\x21-\\x7E]+$" },
};

const replayedHeader: Record<string, OpenApiHeader> = {
  "Idempotent-Replayed": {
    description: "Present when this is the first answer to the same Idempotency-Key, given again.",
    schema: { type: "string", const: "true" },
  },
};

function operation(
  definition: Definition,
  endpoint: Endpoint,
  operationId: string,
  auth: ServeAuth | undefined,
): OpenApiOperation {
  const { method } = endpoint;
  const description = definition.description?.trim();
  const parameters = [
    ...queryParameters(endpoint.params),
    ...(bodyMethods.has(method) ? [idempotencyKey] : []),
  ];
  return {
    operationId,
    summary: description?.split("\n", 1)[0] || definition.name,
    ...(description ? { description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(bodyMethods.has(method)
      ? { requestBody: { required: false, content: json(definition.request_schema ?? {}) } }
      : {}),
    responses: responsesOf(definition, endpoint, auth),
  };
}

/** The statuses serve answers itself, with a problem, before or instead of a run of the endpoint. */
function serveStatuses(method: HttpMethod, auth: ServeAuth | undefined): Record<string, OpenApiResponse> {
  const own: Record<string, OpenApiResponse> = {
    "400": { description: "The query, the body or the Idempotency-Key is not one this endpoint takes." },
  };
  if (auth && auth.type !== "none") {
    own["401"] = {
      description: "No credentials, or credentials that are not valid.",
      headers: {
        "WWW-Authenticate": { description: "The scheme to authenticate with.", schema: { type: "string" } },
      },
    };
  }
  if (bodyMethods.has(method)) {
    own["409"] = { description: "A request with this Idempotency-Key is still running." };
    own["413"] = { description: "The body is larger than the server takes." };
    own["415"] = { description: "The body is neither JSON nor a form this endpoint takes." };
    own["422"] = { description: "This Idempotency-Key was used with another request." };
  }
  own["503"] = {
    description: "The server is running as many integrations as it may.",
    headers: {
      "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "string" } },
    },
  };
  return own;
}

/**
 * What an operation answers: what the endpoint declares, by status; else 200 (the default) and, for a
 * POST, 201, or 202 for an asynchronous one; serve's own problems; and for every other status serve's
 * problem or a failed run's default output. Where a status may be either a run's JSON or serve's problem,
 * the JSON's schema takes a Problem too: validators such as Prism match `application/problem+json` to an
 * `application/json` entry (the +json suffix) and check the first one listed.
 */
function responsesOf(
  definition: Definition,
  endpoint: Endpoint,
  auth: ServeAuth | undefined,
): OpenApiOperation["responses"] {
  const own = serveStatuses(endpoint.method, auth);
  const success = bodyMethods.has(endpoint.method) ? { headers: replayedHeader } : {};
  const declared = Object.entries(endpoint.responses ?? {});
  const responses = successes(definition, endpoint, declared, success);
  for (const [status, response] of declared)
    responses[status] = declaredResponse(status, response, own, success);
  for (const [status, response] of Object.entries(own))
    responses[status] ??= { ...response, content: problem };
  responses.default ??= {
    description: "An error: the output of a failed run, or a problem serve answered itself.",
    content: { ...json({ anyOf: [ref("RunFailure"), ref("Problem")] }), ...problem },
  };
  // In order of status, the default last: as a reader looks for one.
  return Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) =>
      a === "default" ? 1 : b === "default" ? -1 : a < b ? -1 : 1,
    ),
  );
}

/** 202 for an asynchronous integration; else, where the endpoint declares no success, 200 (and 201 for a POST). */
function successes(
  definition: Definition,
  endpoint: Endpoint,
  declared: [string, unknown][],
  success: Pick<OpenApiResponse, "headers">,
): OpenApiOperation["responses"] {
  if (definition.run_async) {
    const Location = {
      description: "The run's record, at /_bass/runs/{run_id}.",
      schema: { type: "string" },
    };
    return {
      "202": { description: "The run has started.", headers: { Location }, content: json(ref("RunStarted")) },
    };
  }
  if (declared.some(([status]) => status.startsWith("2"))) return {};
  const output = { description: "The integration's output.", ...success, content: json({}) };
  return endpoint.method === "POST" ? { "200": output, "201": output } : { "200": output };
}

/** A status the endpoint declares; where serve answers it too, its JSON may be a Problem. */
function declaredResponse(
  status: string,
  { description, schema }: { description: string; schema?: JsonSchema | undefined },
  own: Record<string, OpenApiResponse>,
  success: Pick<OpenApiResponse, "headers">,
): OpenApiResponse {
  const alsoServe = own[status];
  if (!alsoServe)
    return { description, ...(status.startsWith("2") ? success : {}), content: json(schema ?? {}) };
  return {
    description: `${description} Or: ${alsoServe.description}`,
    ...(alsoServe.headers ? { headers: alsoServe.headers } : {}),
    content: { ...json({ anyOf: [schema ?? {}, ref("Problem")] }), ...problem },
  };
}

/** Each property of an endpoint's `params` schema as a query parameter, required as the schema says. */
function queryParameters(params: Endpoint["params"]): OpenApiParameter[] {
  const properties = params?.properties;
  if (!params || typeof properties !== "object" || properties === null) return [];
  const required = new Set(Array.isArray(params.required) ? params.required : []);
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, schema]) => {
    const description = typeof schema === "object" ? schema.description : undefined;
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema,
    };
  });
}

/** `base`, or `base.2`, `base.3` … when an operation already has it: operation ids are unique. */
function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let count = 2; taken.has(id); count++) id = `${base}.${count}`;
  taken.add(id);
  return id;
}

function sortMethods(item: OpenApiPathItem): OpenApiPathItem {
  const sorted: OpenApiPathItem = item.parameters ? { parameters: item.parameters } : {};
  for (const method of methodOrder) {
    const key = method.toLowerCase() as Lowercase<HttpMethod>;
    if (item[key]) sorted[key] = item[key];
  }
  return sorted;
}

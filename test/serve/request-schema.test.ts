import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it, vi } from "vitest";
import type { Definition } from "../../src/definition/types.js";
import { BassError } from "../../src/errors.js";
import type { ProblemError } from "../../src/serve/problem.js";
import {
  createBodyCompiler,
  maxSchemaErrors,
  type RequestSchemaValidator,
} from "../../src/serve/request-schema.js";

const customerSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://bank.example/schemas/customer",
  type: "object",
  required: ["first_name", "email"],
  additionalProperties: false,
  properties: {
    first_name: { type: "string", minLength: 1 },
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { type: "string" } },
    "a/b~c": { type: "integer" },
    "with space": { type: "integer" },
    address: {
      type: "object",
      properties: { zip: { type: "string", pattern: "^[0-9]{5}$" } },
      unevaluatedProperties: false,
    },
  },
};

const definitions: Definition[] = [
  { name: "customers.create", request_schema: customerSchema },
  { name: "customers.update", request_schema: { ...customerSchema, required: [] } },
  { name: "customers.get" },
  { name: "anything", request_schema: true },
  { name: "nothing", request_schema: false },
];
/** Each definition's validator by name, compiled by one compiler as a served set does. */
function compileRequestSchemas(
  list: readonly Definition[],
  secrets: readonly string[] = [],
): ReadonlyMap<string, RequestSchemaValidator> {
  const compileBody = createBodyCompiler(secrets);
  const validators = new Map<string, RequestSchemaValidator>();
  for (const definition of list) {
    const validator = compileBody(definition);
    if (validator) validators.set(definition.name, validator);
  }
  return validators;
}

const schemas = compileRequestSchemas(definitions);
const check = (name: string, payload: unknown): ProblemError[] => {
  const validate = schemas.get(name);
  if (!validate) throw new Error(`no validator for ${name}`);
  return validate(payload);
};

describe("createBodyCompiler", () => {
  it("has a validator for each definition with a request_schema, even two with one $id", () => {
    expect([...schemas.keys()]).toEqual(["customers.create", "customers.update", "anything", "nothing"]);
  });

  it.each<[string, unknown, ProblemError[]]>([
    ["customers.create", { first_name: "Ada", email: "ada@example.com" }, []],
    ["customers.create", { first_name: "Ada", email: "not an e-mail, formats are not checked" }, []],
    [
      "customers.create",
      { first_name: "Ada", email: "a@b", tags: ["x"], "a/b~c": 1, address: { zip: "12345" } },
      [],
    ],
    [
      "customers.create",
      {},
      [
        { pointer: "#/first_name", message: "must have required property 'first_name'" },
        { pointer: "#/email", message: "must have required property 'email'" },
      ],
    ],
    [
      "customers.create",
      { first_name: "", email: 7, tags: ["a", 2] },
      [
        { pointer: "#/first_name", message: "must NOT have fewer than 1 characters" },
        { pointer: "#/email", message: "must be string" },
        { pointer: "#/tags/1", message: "must be string" },
      ],
    ],
    [
      "customers.create",
      { first_name: "Ada", email: "a@b", extra: 1 },
      [{ pointer: "#/extra", message: "must NOT have additional properties" }],
    ],
    [
      "customers.create",
      { first_name: "Ada", email: "a@b", "a/b~c": "x", "with space": "y", "#?": 1 },
      [
        { pointer: "#/%23%3F", message: "must NOT have additional properties" },
        { pointer: "#/a~1b~0c", message: "must be integer" },
        { pointer: "#/with%20space", message: "must be integer" },
      ],
    ],
    [
      "customers.create",
      { first_name: "Ada", email: "a@b", address: { zip: "1", city: "x" } },
      [
        { pointer: "#/address/zip", message: 'must match pattern "^[0-9]{5}$"' },
        { pointer: "#/address/city", message: "must NOT have unevaluated properties" },
      ],
    ],
    ["customers.create", [], [{ pointer: "#", message: "must be object" }]],
    ["customers.create", "text", [{ pointer: "#", message: "must be object" }]],
    ["customers.update", {}, []],
    ["anything", { whatever: [1, 2, 3] }, []],
    ["nothing", {}, [{ pointer: "#", message: "boolean schema is false" }]],
  ])("%s checks %j", (name, payload, errors) => {
    expect(check(name, payload)).toEqual(errors);
  });

  it(`reports at most ${maxSchemaErrors} errors`, () => {
    const tags = Array.from({ length: 500 }, (_, index) => index);
    const errors = check("customers.create", { first_name: "Ada", email: "a@b", tags });
    expect(errors).toHaveLength(maxSchemaErrors);
    expect(errors[0]).toEqual({ pointer: "#/tags/0", message: "must be string" });
  });

  it("leaves the payload as it was", () => {
    const payload = { first_name: "Ada", email: "a@b", tags: ["x"] };
    const copy = structuredClone(payload);
    check("customers.create", payload);
    expect(payload).toEqual(copy);
  });

  it("compiles each schema once, not per request", () => {
    const compile = vi.spyOn(Ajv2020.prototype, "compile");
    try {
      const once = compileRequestSchemas(definitions);
      for (let index = 0; index < 50; index++)
        once.get("customers.create")?.({ first_name: "x", email: "y" });
      expect(compile).toHaveBeenCalledTimes(4);
    } finally {
      compile.mockRestore();
    }
  });

  it("masks the project's secrets in a schema's compile error", () => {
    const schema = { $ref: "https://schemas.example/hunter22-token.json" };
    const load = () =>
      compileRequestSchemas([{ name: "secret.schema", request_schema: schema }], ["hunter22-token"]);
    expect(load).toThrow(/^secret\.schema: request_schema cannot be compiled/);
    expect(load).not.toThrow(/hunter22/);
  });

  it.each([
    ["an unknown type", { type: "strin" }],
    ["a reference that cannot be resolved", { $ref: "https://elsewhere.example/schema.json" }],
  ])("stops the load with DEFINITION_INVALID for %s", (_, schema) => {
    const load = () => compileRequestSchemas([{ name: "broken.schema", request_schema: schema }]);
    expect(load).toThrow(BassError);
    expect(load).toThrow(/^broken\.schema: request_schema cannot be compiled/);
    try {
      load();
    } catch (error) {
      expect((error as BassError).code).toBe("DEFINITION_INVALID");
    }
  });
});

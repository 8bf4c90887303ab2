import type { ErrorObject, ValidateFunction } from "ajv";
import { createRequestSchemaCompiler } from "../definition/request-schema.js";
import type { Definition, Endpoint } from "../definition/types.js";
import { scrubError } from "../engine/scrub-error.js";
import { BassError } from "../errors.js";
import type { ProblemError } from "./problem.js";

/** Checks a parsed body against one integration's `request_schema`; no errors means it passes. */
export type RequestSchemaValidator = (payload: unknown) => ProblemError[];

/** At most this many errors are reported for one body, however many it has. */
export const maxSchemaErrors = 20;

/**
 * One definition's `request_schema` as a validator, or undefined without one; compiled once as the
 * set loads. A schema ajv cannot compile stops the load with DEFINITION_INVALID (validate's
 * request-schema rule reports it first, with its line); its message has `secrets` masked, since the
 * schema's values may come from `${env:…}` and ajv quotes them (an unresolvable `$ref`).
 */
export function createBodyCompiler(
  secrets: readonly string[] = [],
): (definition: Definition) => RequestSchemaValidator | undefined {
  let compile: ReturnType<typeof createRequestSchemaCompiler> | undefined;
  return (definition) => {
    if (definition.request_schema === undefined) return undefined;
    compile ??= createRequestSchemaCompiler();
    return compileChecked(compile, definition.request_schema, `${definition.name}: request_schema`, secrets);
  };
}

/**
 * A compiler of endpoints' `params` into validators of a request's query (its values coerced to the
 * schema's types, on a copy: the run sees the query as it came). Compiled as the set loads, as above.
 */
export function createParamsCompiler(
  secrets: readonly string[] = [],
): (definition: Definition, endpoint: Endpoint) => RequestSchemaValidator | undefined {
  let compile: ReturnType<typeof createRequestSchemaCompiler> | undefined;
  return (definition, endpoint) => {
    if (endpoint.params === undefined) return undefined;
    compile ??= createRequestSchemaCompiler({ coerceTypes: true });
    const what = `${definition.name}: the params of ${endpoint.method} ${endpoint.path}`;
    const validate = compileChecked(compile, endpoint.params, what, secrets);
    return (query) => validate(structuredClone(query));
  };
}

/** The validator of `schema`; a schema ajv cannot compile is DEFINITION_INVALID, its message masked. */
function compileChecked(
  compile: ReturnType<typeof createRequestSchemaCompiler>,
  schema: Record<string, unknown> | boolean,
  what: string,
  secrets: readonly string[],
): RequestSchemaValidator {
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (caught) {
    const error = scrubError(caught, secrets);
    const reason = error instanceof Error ? error.message : String(error);
    throw new BassError("DEFINITION_INVALID", `${what} cannot be compiled: ${reason}`, { cause: error });
  }
  return (payload) =>
    validate(payload) ? [] : (validate.errors ?? []).slice(0, maxSchemaErrors).map(toProblemError);
}

/** An ajv error as an RFC 9457 error: a JSON pointer into the body (as a URI fragment) and ajv's message. */
function toProblemError(error: ErrorObject): ProblemError {
  let pointer = error.instancePath;
  // A missing or unexpected property is pointed at itself rather than at the object around it.
  const property =
    error.keyword === "required"
      ? error.params.missingProperty
      : error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties"
        ? (error.params.additionalProperty ?? error.params.unevaluatedProperty)
        : undefined;
  if (typeof property === "string") pointer += `/${property.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  const fragment = pointer
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
  return { pointer: `#${fragment}`, message: error.message ?? `fails ${error.keyword}` };
}

import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { isObject } from "../objects.js";
import { pointerSegments } from "./schema.js";
import type { ValuePath } from "./value-path.js";

// Both required on first use: a project without a request_schema never loads them.
const require = createRequire(import.meta.url);
let metaSchema: ((schema: unknown) => boolean) & { errors?: ErrorObject[] | null };

type Schema = Record<string, unknown> | boolean;

/**
 * A compiler of `request_schema`s into the validators serve checks bodies with, for one load of a project:
 * ajv keeps every schema it compiled, so each load (serve --watch reloads) has an ajv of its own, dropped
 * with it. It throws ajv's error for a schema it cannot compile. The schema is not checked against the
 * meta-schema again (ajv would compile that at run time): the request-schema rule has, before any load.
 * Formats are not checked (no format vocabulary is promised); `addUsedSchema: false` keeps each schema's
 * `$id` to itself, so two definitions may share one.
 */
export function createRequestSchemaCompiler(
  options: { coerceTypes?: boolean } = {},
): (schema: Schema) => ValidateFunction {
  const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const ajv: Ajv2020 = new Ajv2020({
    strict: false,
    // Query parameters arrive as text: `?limit=5` meets `type: integer`, one value meets `type: array`.
    ...(options.coerceTypes ? { coerceTypes: "array" as const } : {}),
    allErrors: true,
    validateFormats: false,
    validateSchema: false,
    addUsedSchema: false,
  });
  return (schema) => ajv.compile(schema);
}

export interface RequestSchemaProblem {
  /** Where in the definition: `request_schema` or a value inside it. */
  at: ValuePath;
  message: string;
}

/**
 * Why a `request_schema` is not a JSON Schema serve can use, one problem per place: checked against the
 * 2020-12 meta-schema (compiled at build time, since ajv is slow to compile it), then every `pattern`
 * must be a regular expression and every `$ref` to a place in the schema itself must find it. A `$ref` to
 * another document is left to serve, which cannot start without it either.
 */
export function requestSchemaProblems(
  schema: Schema,
  root: ValuePath = ["request_schema"],
): RequestSchemaProblem[] {
  const label = root.join(".");
  metaSchema ??= (require("../../schema/json-schema-2020.cjs") as { metaSchema: typeof metaSchema })
    .metaSchema;
  if (!metaSchema(schema)) {
    // The meta-schema reports a place several times over (an enum, then the anyOf around it): keep the first.
    const byPlace = new Map<string, RequestSchemaProblem>();
    for (const error of metaSchema.errors ?? []) {
      if (byPlace.has(error.instancePath)) continue;
      const allowed = error.params.allowedValues as unknown[] | undefined;
      const place = error.instancePath.slice(1) || "the schema";
      const values = allowed ? ` (${allowed.map((value) => JSON.stringify(value)).join(", ")})` : "";
      byPlace.set(error.instancePath, {
        at: [...root, ...pathOf(schema, error.instancePath)],
        message: `${label} is not a JSON Schema 2020-12: ${place} ${error.message}${values}`,
      });
    }
    return [...byPlace.values()];
  }
  const problems: RequestSchemaProblem[] = [];
  eachSubschema(schema, [], (subschema, path) => {
    const patterns: [string, ValuePath][] = [];
    if (typeof subschema.pattern === "string") patterns.push([subschema.pattern, [...path, "pattern"]]);
    for (const key of Object.keys(asObject(subschema.patternProperties))) {
      patterns.push([key, [...path, "patternProperties", key]]);
    }
    for (const [pattern, at] of patterns) {
      try {
        new RegExp(pattern, "u");
      } catch (error) {
        problems.push({
          at: [...root, ...at],
          message: `${label}: ${(error as Error).message}`,
        });
      }
    }
    const ref = subschema.$ref;
    if (typeof ref === "string" && ref.startsWith("#/") && !resolves(schema, ref.slice(1))) {
      problems.push({
        at: [...root, ...path, "$ref"],
        message: `${label}: $ref ${JSON.stringify(ref)} points at nothing in the schema`,
      });
    }
  });
  return problems;
}

// Keywords whose value is a schema, a map of schemas, or a list of schemas (JSON Schema 2020-12).
const schemaKeywords = [
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const schemaMapKeywords = ["$defs", "dependentSchemas", "patternProperties", "properties"];
const schemaListKeywords = ["allOf", "anyOf", "oneOf", "prefixItems"];

/** Calls `visit` with the schema and each schema inside it (not `const`, `enum` or other data), with its path. */
function eachSubschema(
  schema: unknown,
  path: ValuePath,
  visit: (schema: Record<string, unknown>, path: ValuePath) => void,
): void {
  if (typeof schema !== "object" || schema === null) return;
  const object = schema as Record<string, unknown>;
  visit(object, path);
  for (const keyword of schemaKeywords) {
    if (keyword in object) eachSubschema(object[keyword], [...path, keyword], visit);
  }
  for (const keyword of schemaMapKeywords) {
    for (const [key, value] of Object.entries(asObject(object[keyword]))) {
      eachSubschema(value, [...path, keyword, key], visit);
    }
  }
  for (const keyword of schemaListKeywords) {
    const list = object[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, value] of list.entries()) eachSubschema(value, [...path, keyword, index], visit);
  }
}

/** The value as a mapping, or an empty one. */
function asObject(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** Whether a URI fragment's JSON pointer (`/$defs/x`) finds a value in `root`. */
function resolves(root: unknown, fragment: string): boolean {
  let at = root;
  let pointer: string;
  try {
    pointer = decodeURIComponent(fragment);
  } catch {
    return false;
  }
  for (const segment of pointerSegments(pointer)) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, segment)) return false;
    at = (at as Record<string, unknown>)[segment];
  }
  return true;
}

/** A JSON pointer into `value` as a value path: segments that index an array become numbers. */
function pathOf(value: unknown, pointer: string): ValuePath {
  const path: (string | number)[] = [];
  let at = value;
  for (const segment of pointerSegments(pointer)) {
    const key = Array.isArray(at) ? Number(segment) : segment;
    path.push(key);
    at = (at as Record<string | number, unknown> | undefined)?.[key];
  }
  return path;
}

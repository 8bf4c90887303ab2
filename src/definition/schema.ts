import type { ErrorObject } from "ajv";
// Compiled from schema/*.schema.json by `npm run build` (scripts/build-schema-validators.js).
import { definition, project, test } from "../../schema/validators.js";
import { closest } from "../suggest.js";
import type { Issue } from "./issue.js";
import type { RuleId } from "./rules.js";
import { formatPath, type ValuePath } from "./value-path.js";
import type { YamlSource } from "./yaml-source.js";

export type SchemaName = "definition" | "project" | "test";

const validators = { definition, project, test };

/** Checks a parsed file against its schema; every finding is placed at its key or value. */
export function validateSchema(name: SchemaName, source: YamlSource): Issue[] {
  const validate = validators[name];
  if (validate(source.value)) return [];
  return (validate.errors ?? []).flatMap((error) => toIssue(error, source) ?? []);
}

function toIssue(error: ErrorObject, source: YamlSource): Issue | undefined {
  const path = instancePath(error.instancePath);
  const where = formatWhere(path);
  const issue = (rule: RuleId, message: string, at: ValuePath, target: "key" | "value" = "key"): Issue => ({
    file: source.file,
    ...source.locate(at, target),
    severity: "error",
    rule,
    message,
  });
  // A key that breaks `propertyNames`: ajv reports the broken rule with the key, then `propertyNames`
  // itself; the first says it all, and belongs at the key rather than at the mapping that holds it.
  if (error.propertyName !== undefined) {
    const key = error.propertyName;
    return issue("schema-format", `key ${JSON.stringify(key)}${where} ${error.message ?? "is invalid"}`, [
      ...path,
      key,
    ]);
  }
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(error.params.additionalProperty);
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const guess = closest(key, known);
      const hint = guess
        ? `; did you mean ${JSON.stringify(guess)}?`
        : known.length
          ? `; known keys: ${known.join(", ")}`
          : "";
      return issue("schema-unknown-key", `unknown key ${JSON.stringify(key)}${where}${hint}`, [...path, key]);
    }
    case "required":
      return issue(
        "schema-required",
        `missing required key ${JSON.stringify(error.params.missingProperty)}${where}`,
        path,
      );
    case "type":
      return issue("schema-type", `${describe(path)} must be ${formatTypes(error.params.type)}`, path);
    case "enum":
    case "const": {
      const allowed = (
        error.keyword === "enum" ? error.params.allowedValues : [error.params.allowedValue]
      ) as unknown[];
      const shown = allowed.map((value) => JSON.stringify(value)).join(", ");
      return issue("schema-enum", `${describe(path)} must be one of ${shown}`, path);
    }
    case "propertyNames":
    case "if":
    case "oneOf":
    case "anyOf":
      return undefined; // the errors of the branches say what is wrong
    default:
      return issue("schema-format", `${describe(path)} ${error.message ?? "is invalid"}`, path);
  }
}

function instancePath(pointer: string): ValuePath {
  return pointerSegments(pointer).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** A JSON pointer's segments (`/a~1b/0` → `a/b`, `0`); the empty pointer has none. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function formatWhere(path: ValuePath): string {
  return path.length ? ` in ${formatPath(path)}` : "";
}

function describe(path: ValuePath): string {
  return path.length ? formatPath(path) : "the file";
}

function formatTypes(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types
    .map((name) => (name === "null" ? "null" : `a${/^[aeiou]/.test(String(name)) ? "n" : ""} ${name}`))
    .join(" or ");
}

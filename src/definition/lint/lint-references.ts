import { isObject } from "../../objects.js";
import { parseFieldPath } from "../field-path.js";
import type { LoadedDefinition } from "../load.js";
import { objectItems } from "../object-items.js";
import { requestSchemaProblems } from "../request-schema.js";
import { scheduleProblem } from "../schedule.js";
import type { Definition, SystemConfig } from "../types.js";
import type { ValuePath } from "../value-path.js";
import { listKnown } from "./list-known.js";
import type { Report } from "./report.js";

export interface ReferenceContext {
  /** The project's systems; undefined when no project file is known, so system names go unchecked. */
  systems: Readonly<Record<string, SystemConfig>> | undefined;
  /** Whether `request_schema` is checked: serve uses it, run and test do not, and checking costs each run time. */
  requestSchemas: boolean;
  /** The vaults the project file seeds; undefined when it seeds none, so vault names go unchecked. */
  vaults?: ReadonlySet<string> | undefined;
  /** The project file's modules; undefined when no usable project file is known. */
  modules?: ReadonlySet<string> | undefined;
}

/** References between parts of one definition and to the project's systems, and what must not repeat. */
export function lintReferences(loaded: LoadedDefinition, context: ReferenceContext, report: Report): void {
  const definition = loaded.source.value as Definition;
  lintSchedule(definition.schedule, report);
  const requests = objectItems(definition.service_requests);
  const sets = objectItems(definition.value_mapping_sets);
  const names: DefinedNames = {
    formulaVariables: new Set(requests.map(([request]) => request.formula_variable)),
    setNames: new Set(sets.map(([set]) => set.name)),
  };

  reportRepeats(
    requests.map(([request, index]) => [
      request.formula_variable,
      ["service_requests", index, "formula_variable"],
    ]),
    (name, at) =>
      report(
        "duplicate-formula-variable",
        `formula variable ${JSON.stringify(name)} is used by an earlier service request`,
        at,
      ),
  );
  reportRepeats(
    sets.map(([set, index]) => [set.name, ["value_mapping_sets", index, "name"]]),
    (name, at) =>
      report("duplicate-value-mapping-set", `value mapping set ${JSON.stringify(name)} is defined twice`, at),
  );
  lintEndpoints(definition, report);

  const schema = definition.request_schema;
  if (context.requestSchemas && (typeof schema === "boolean" || isObject(schema))) {
    for (const problem of requestSchemaProblems(schema))
      report("request-schema", problem.message, problem.at);
  }
  for (const [endpoint, index] of objectItems(definition.endpoints)) {
    if (!context.requestSchemas || !isObject(endpoint.params)) continue;
    for (const problem of requestSchemaProblems(endpoint.params, ["endpoints", index, "params"]))
      report("request-schema", problem.message, problem.at);
  }

  for (const [mask, index] of objectItems(definition.masks)) {
    checkServiceRequest(["masks", index], mask.type, mask.service_request, names, report);
    checkPath(loaded, report, mask.field, ["masks", index, "field"], false);
    checkPath(loaded, report, mask.apply_to_each, ["masks", index, "apply_to_each"], false);
  }
  for (const [rule, index] of objectItems(definition.validation_rules)) {
    checkServiceRequest(["validation_rules", index], rule.type, rule.service_request, names, report);
  }
  for (const [request, index] of requests) {
    lintServiceRequest(loaded, request, ["service_requests", index], { context, names, report });
  }
}

/** The names a definition defines, which its other parts refer to. */
interface DefinedNames {
  formulaVariables: Set<unknown>;
  setNames: Set<unknown>;
}

/** Endpoints listed twice, paths under /_bass and paths that name a param twice. */
function lintEndpoints(definition: Definition, report: Report): void {
  reportRepeats(
    objectItems(definition.endpoints).flatMap(([endpoint, index]) =>
      typeof endpoint.method === "string" && typeof endpoint.path === "string"
        ? [[endpointKey(endpoint.method, endpoint.path), ["endpoints", index]]]
        : [],
    ),
    (key, at) => report("duplicate-endpoint", `endpoint ${JSON.stringify(key)} is listed twice`, at),
  );
  for (const [endpoint, index] of objectItems(definition.endpoints)) {
    if (typeof endpoint.path !== "string") continue;
    const at = ["endpoints", index, "path"];
    if (endpoint.path === "/_bass" || endpoint.path.startsWith("/_bass/")) {
      report(
        "endpoint-path",
        `${JSON.stringify(endpoint.path)} is under /_bass, which serve keeps for its admin routes`,
        at,
      );
    }
    const params = [...endpoint.path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] ?? "");
    const repeated = params.find((name, position) => params.indexOf(name) !== position);
    if (repeated !== undefined) {
      report(
        "endpoint-path",
        `{${repeated}} stands twice in ${JSON.stringify(endpoint.path)}; input.path would keep only one`,
        at,
      );
    }
  }
}

/** A REQUEST or RESPONSE mask or rule (at `at`) names the formula variable of an existing service request. */
function checkServiceRequest(
  at: [kind: "masks" | "validation_rules", index: number],
  type: unknown,
  name: unknown,
  names: DefinedNames,
  report: Report,
): void {
  if (type !== "REQUEST" && type !== "RESPONSE") return;
  if (typeof name !== "string" || name === "") {
    report(
      "missing-service-request",
      `a ${type} ${at[0] === "masks" ? "mask" : "rule"} needs service_request: the formula variable of its service request`,
      at,
    );
  } else if (!names.formulaVariables.has(name)) {
    report(
      "unknown-formula-variable",
      `no service request has formula variable ${JSON.stringify(name)}${listKnown(names.formulaVariables)}`,
      [...at, "service_request"],
    );
  }
}

/** A schedule that cannot run, at the key that says why. */
function lintSchedule(schedule: Definition["schedule"], report: Report): void {
  if (!isObject(schedule)) return;
  const problem = scheduleProblem(schedule);
  if (!problem) return;
  report("schedule-invalid", problem.message, [
    "schedule",
    ...(problem.key in schedule ? [problem.key] : []),
  ]);
}

type ServiceRequest = NonNullable<Definition["service_requests"]>[number];

interface ServiceRequestLint {
  context: ReferenceContext;
  names: DefinedNames;
  report: Report;
}

/** A service request's system, its field mappings, and the mappings an http system needs. */
function lintServiceRequest(
  loaded: LoadedDefinition,
  request: ServiceRequest,
  at: ValuePath,
  { context, names, report }: ServiceRequestLint,
): void {
  const system =
    context.systems && typeof request.system === "string" && Object.hasOwn(context.systems, request.system)
      ? context.systems[request.system]
      : undefined;
  if (context.systems && typeof request.system === "string" && !system) {
    report(
      "unknown-system",
      `no system ${JSON.stringify(request.system)} in the project file${listKnown(Object.keys(context.systems))}`,
      [...at, "system"],
    );
  }
  const mappings = objectItems(request.field_mappings);
  for (const [mapping, mappingIndex] of mappings) {
    lintFieldMapping(loaded, mapping, [...at, "field_mappings", mappingIndex], names, report);
  }
  if (system?.adapter === "http") {
    const fields = new Set(mappings.map(([mapping]) => mapping.field));
    const missing = ["service_path", "method"].filter((field) => !fields.has(field));
    if (missing.length) {
      report(
        "http-mapping-required",
        `service request ${JSON.stringify(request.formula_variable)} is on http system ${JSON.stringify(request.system)} and needs field mappings for ${missing.join(" and ")}`,
        at,
      );
    }
  }
}

/** A field mapping has one source, a path that parses, and a value mapping set that exists. */
function lintFieldMapping(
  loaded: LoadedDefinition,
  mapping: NonNullable<ServiceRequest["field_mappings"]>[number],
  at: ValuePath,
  names: DefinedNames,
  report: Report,
): void {
  const hasLiteral = "literal" in mapping;
  const hasValue = mapping.value !== undefined && mapping.value !== null;
  if (hasLiteral === hasValue) {
    const which =
      typeof mapping.field === "string"
        ? `field mapping ${JSON.stringify(mapping.field)}`
        : "a field mapping";
    report(
      "mapping-source",
      `${which} needs exactly one of literal and value, ${hasLiteral ? "not both" : "it has neither"}`,
      at,
    );
  }
  checkPath(loaded, report, mapping.field, [...at, "field"], true);
  const set = mapping.value_mapping_set;
  if (typeof set === "string" && !names.setNames.has(set)) {
    report(
      "unknown-value-mapping-set",
      `no value mapping set ${JSON.stringify(set)} in this integration${listKnown(names.setNames)}`,
      [...at, "value_mapping_set"],
    );
  }
}

/** The key under which two endpoints collide: method and path, with every {param} alike. */
export function endpointKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]*\}/g, "{}").replace(/\/+$/, "") || "/"}`;
}

/** Calls `onRepeat` for every entry whose key an earlier entry already had; keys that are not strings are skipped. */
function reportRepeats(
  entries: readonly [unknown, ValuePath][],
  onRepeat: (key: string, at: ValuePath) => void,
): void {
  const seen = new Set<string>();
  for (const [key, at] of entries) {
    if (typeof key !== "string") continue;
    if (seen.has(key)) onRepeat(key, at);
    seen.add(key);
  }
}

function checkPath(
  loaded: LoadedDefinition,
  report: Report,
  text: unknown,
  at: ValuePath,
  allowExpressions: boolean,
): void {
  if (typeof text !== "string") return;
  const parsed = parseFieldPath(text);
  if (!parsed.ok) {
    const where = loaded.source.locateInString(at, 1, parsed.offset);
    report(
      "field-path",
      `cannot parse path ${JSON.stringify(text)}: ${parsed.message} at character ${parsed.offset + 1}`,
      where,
    );
  } else if (!allowExpressions && parsed.segments.some((segment) => segment.kind === "expression")) {
    report(
      "field-path",
      `path ${JSON.stringify(text)} may hold names, indexes and [*], not expressions`,
      at,
      {
        target: "value",
      },
    );
  }
}

import type { Definition, ValueMappingSet } from "../definition/types.js";
import { isObject } from "../objects.js";
import { convertMasks, convertValidationRules, integrationOf } from "./glyue-checks.js";
import {
  about,
  type GlyueExport,
  type GlyueRow,
  isEmpty,
  linkOf,
  readBoolean,
  readCell,
  readText,
  withoutUndefined,
} from "./glyue-export.js";
import { reportLeftFields } from "./glyue-fields.js";
import type { GlyueSystems } from "./glyue-project.js";
import { convertServiceRequests } from "./glyue-requests.js";
import type { ImportReportItem } from "./report.js";
import { asList, type Converted } from "./yaml-document.js";

/** What converting one integration needs from the rest of the export. */
export interface IntegrationScope {
  tables: GlyueExport["tables"];
  systems: GlyueSystems;
  sets: ReadonlyMap<string, Converted<ValueMappingSet>>;
  /** The names of the value mapping sets, by row id. */
  setNames: ReadonlyMap<string, string>;
  report: ImportReportItem[];
}

const validName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The name of an integration: its path_name, made one bass takes (and reported) where it is not. Undefined,
 * and reported with everything that belongs to it, when it has none or another integration has it.
 */
export function integrationName(
  row: GlyueRow,
  names: Set<string>,
  tables: GlyueExport["tables"],
  report: ImportReportItem[],
): string | undefined {
  const written = readText(row, "path_name", report)?.trim() ?? "";
  const name = validName.test(written)
    ? written
    : written
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .replace(/^[^A-Za-z0-9]+/, "")
        .slice(0, 100);
  const taken = names.has(name.toLowerCase());
  if (name === "" || taken) {
    const why = taken ? `another integration is named ${name} already` : "it has no path_name";
    report.push(about(row, "path_name", `${why}; not carried over${belongings(row, tables)}`));
    return undefined;
  }
  if (name !== written)
    report.push(about(row, "path_name", `is named ${name} in bass (letters, digits, . _ - only)`));
  names.add(name.toLowerCase());
  return name;
}

/** `, nor its 2 service requests and 1 mask`: what is left out with an integration. */
function belongings(row: GlyueRow, tables: GlyueExport["tables"]): string {
  const counts: [string, number][] = [
    [
      "service request",
      tables.servicerequest.filter((request) => linkOf(request, "integration") === row.id).length,
    ],
    ["mask", tables.mask.filter((mask) => integrationOf(mask, tables) === row.id).length],
    [
      "validation rule",
      tables.validationrule.filter((rule) => integrationOf(rule, tables) === row.id).length,
    ],
  ];
  const parts = counts
    .filter(([, count]) => count > 0)
    .map(([what, count]) => `${count} ${what}${count === 1 ? "" : "s"}`);
  return parts.length === 0 ? "" : `, nor its ${parts.join(" and ")}`;
}

/** One integration as a definition: its cells as written, everything in sequence order. */
export function convertIntegration(
  row: GlyueRow,
  name: string,
  scope: IntegrationScope,
): Converted<Definition> {
  const { tables, report } = scope;
  const requests = convertServiceRequests(row, scope);
  const checks = { tables, variables: requests.variables, report };
  const masks = convertMasks(row, checks);
  const rules = convertValidationRules(row, checks);
  const sets = setsOf(row, requests.variables, scope);
  const httpApi = readBoolean(row, "http_api", report) !== false;
  const definition: Definition = withoutUndefined({
    name,
    description: readText(row, "description", report),
    language: "python",
    run_async: readBoolean(row, "run_async", report) || undefined,
    http_api: httpApi ? undefined : false,
    // The platform's own route, so that callers keep their url.
    endpoints: httpApi ? [{ method: "POST", path: `/integrations/execute/${name}` }] : undefined,
    request_schema: requestSchema(row, report),
    value_mapping_sets: listed(sets),
    masks: listed(masks),
    validation_rules: listed(rules),
    before_hook: readCell(row, "before_hook", report),
    service_requests: listed(requests),
    on_success_hook: readCell(row, "on_success_hook", report),
    on_failure_hook: readCell(row, "on_failure_hook", report),
    finally_hook: readCell(row, "finally_hook", report),
  } satisfies Definition);
  reportLeftFields(row, report);
  return { value: definition, notes: [sets, masks, rules, requests].flatMap((list) => list.notes) };
}

/** A list, or undefined when it is empty: the definition leaves out an empty list. */
function listed<T>(list: Converted<T[]>): T[] | undefined {
  return list.value.length > 0 ? list.value : undefined;
}

/** The value mapping sets an integration writes: its own, and those its written field mappings use. */
function setsOf(
  row: GlyueRow,
  variables: ReadonlyMap<string, string>,
  scope: IntegrationScope,
): Converted<ValueMappingSet[]> {
  const { tables } = scope;
  const wanted = new Set(
    tables.valuemappingset.filter((set) => linkOf(set, "integration") === row.id).map((set) => set.id),
  );
  for (const mapping of tables.fieldmapping) {
    const set = linkOf(mapping, "valuemappingset");
    if (set !== undefined && variables.has(linkOf(mapping, "servicerequest") ?? "")) wanted.add(set);
  }
  return asList(
    "value_mapping_sets",
    [...scope.sets].filter(([id]) => wanted.has(id)).map(([, set]) => set),
  );
}

/**
 * The request's JSON Schema from swagger_request: the schema itself, or an OpenAPI request body
 * (`{ content: { "application/json": { schema } } }`, as the platform's Swagger page takes it) unwrapped.
 */
function requestSchema(
  row: GlyueRow,
  report: ImportReportItem[],
): Record<string, unknown> | boolean | undefined {
  let value = row.fields.swagger_request;
  if (isEmpty(value)) return undefined;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      report.push(about(row, "swagger_request", "is text that is not JSON; not carried over"));
      return undefined;
    }
  }
  if (typeof value === "boolean") return value;
  if (!isObject(value)) {
    report.push(about(row, "swagger_request", "is not a JSON Schema (an object); not carried over"));
    return undefined;
  }
  const json = isObject(value.content) ? value.content["application/json"] : undefined;
  const schema = isObject(json) ? json.schema : undefined;
  return isObject(schema) || typeof schema === "boolean" ? schema : value;
}

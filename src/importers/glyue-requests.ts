import {
  type FieldMapping,
  type ServiceRequest,
  serviceRequestHooks,
  type ValueType,
} from "../definition/types.js";
import {
  about,
  type GlyueExport,
  type GlyueRow,
  isEmpty,
  linkOf,
  notesOf,
  readBoolean,
  readCell,
  readNumber,
  readText,
  shown,
  withoutUndefined,
} from "./glyue-export.js";
import { reportLeftFields } from "./glyue-fields.js";
import type { GlyueSystems } from "./glyue-project.js";
import type { ImportReportItem } from "./report.js";
import { type Converted, inSequence, noteAbove } from "./yaml-document.js";

/** What converting an integration's service requests needs from the rest of the export. */
export interface RequestScope {
  tables: GlyueExport["tables"];
  systems: GlyueSystems;
  /** The names of the value mapping sets, by row id. */
  setNames: ReadonlyMap<string, string>;
  report: ImportReportItem[];
}

/** The platform's Python type names, and bass's value types they are. */
const valueTypes: Record<string, ValueType> = {
  str: "string",
  string: "string",
  int: "integer",
  integer: "integer",
  float: "number",
  number: "number",
  decimal: "decimal",
  bool: "boolean",
  boolean: "boolean",
  dict: "object",
  object: "object",
  list: "array",
  array: "array",
};

const formulaVariable = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * An integration's service requests in sequence order, and the formula variables of those written, by row
 * id. A sub-request (one with a parent) is reported and left out: bass has no sub-requests.
 */
export function convertServiceRequests(
  integration: GlyueRow,
  scope: RequestScope,
): Converted<ServiceRequest[]> & { variables: Map<string, string> } {
  const variables = new Map<string, string>();
  const converted: Converted<ServiceRequest>[] = [];
  for (const row of scope.tables.servicerequest) {
    if (linkOf(row, "integration") !== integration.id) continue;
    const mappings = scope.tables.fieldmapping.filter(
      (mapping) => linkOf(mapping, "servicerequest") === row.id,
    );
    const parent = linkOf(row, "parent_servicerequest");
    if (parent !== undefined) {
      const why = `a sub-request of service request ${parent}: bass has no sub-requests`;
      scope.report.push(about(row, "parent_servicerequest", `${why}; not carried over${nor(mappings)}`));
      continue;
    }
    const request = convertServiceRequest(row, mappings, scope);
    if (request === undefined) continue;
    variables.set(row.id, request.value.formula_variable);
    converted.push(request);
  }
  return { ...inSequence("service_requests", converted), variables };
}

/** `, nor its 3 field mappings`, when it has any. */
function nor(mappings: readonly GlyueRow[]): string {
  if (mappings.length === 0) return "";
  return `, nor its ${mappings.length === 1 ? "field mapping" : `${mappings.length} field mappings`}`;
}

function convertServiceRequest(
  row: GlyueRow,
  mappingRows: readonly GlyueRow[],
  scope: RequestScope,
): Converted<ServiceRequest> | undefined {
  const { report } = scope;
  const variable = readText(row, "formula_variable", report);
  if (variable === undefined || !formulaVariable.test(variable)) {
    const why = variable === undefined ? "is empty" : `${JSON.stringify(variable)} is not a name bass takes`;
    report.push(
      about(row, "formula_variable", `${why}; the service request is not carried over${nor(mappingRows)}`),
    );
    return undefined;
  }
  const system = scope.systems.nameOf(row);
  if (system === undefined) {
    const why = isEmpty(row.fields.system)
      ? "is empty"
      : `names no system of the export (${shown(row.fields.system)})`;
    report.push(about(row, "system", `${why}; the service request is not carried over${nor(mappingRows)}`));
    return undefined;
  }
  const request: ServiceRequest = {
    formula_variable: variable,
    sequence: readNumber(row, "sequence", report),
    system,
    service_name: readText(row, "service_name", report),
    call_if: readCell(row, "call_if", report),
    call_for_each: readCell(row, "call_for_each", report),
    // The platform goes on after a failed call unless told to stop; bass stops unless told to go on.
    abort_after_execute_request_failure:
      readBoolean(row, "abort_after_execute_request_failure", report) === true,
    message_substitution_name: readText(row, "message_substitution_name", report),
  };
  for (const hook of serviceRequestHooks) request[hook] = readCell(row, hook, report);
  const mappings = inSequence(
    "field_mappings",
    mappingRows.flatMap((mapping) => convertFieldMapping(mapping, scope) ?? []),
  );
  if (mappings.value.length > 0) request.field_mappings = mappings.value;
  reportLeftFields(row, report);
  return { value: withoutUndefined(request), notes: [...noteAbove(notesOf(row)), ...mappings.notes] };
}

function convertFieldMapping(row: GlyueRow, scope: RequestScope): Converted<FieldMapping> | undefined {
  const { report } = scope;
  const field = readText(row, "field", report);
  if (field === undefined) {
    report.push(about(row, "field", "is empty; the field mapping is not carried over"));
    return undefined;
  }
  // The platform's http adapter takes the path as url_path, bass's as service_path.
  const mapping: FieldMapping = { field: field === "url_path" ? "service_path" : field };
  const value = readCell(row, "value", report);
  // No code: the platform maps None.
  if (value === undefined) mapping.literal = null;
  else mapping.value = value;
  mapping.value_type = readValueType(row, report);
  if (readBoolean(row, "nullable", report)) mapping.nullable = true;
  mapping.include_if = readCell(row, "include_if", report);
  mapping.include_for_each = readCell(row, "include_for_each", report);
  const set = linkOf(row, "valuemappingset");
  mapping.value_mapping_set = set === undefined ? undefined : scope.setNames.get(set);
  mapping.message_substitution_name = readText(row, "message_substitution_name", report);
  mapping.sequence = readNumber(row, "sequence", report);
  reportLeftFields(row, report);
  return { value: withoutUndefined(mapping), notes: noteAbove(notesOf(row)) };
}

function readValueType(row: GlyueRow, report: ImportReportItem[]): ValueType | undefined {
  const written = readText(row, "value_type", report);
  if (written === undefined || written.trim().toLowerCase() === "none") return undefined;
  const type = valueTypes[written.trim().toLowerCase()];
  if (type === undefined) {
    const why = `${written} is no type bass casts to (str, int, float, decimal, bool, dict, list)`;
    report.push(about(row, "value_type", `${why}; not carried over: the value stays as its cell gives it`));
  }
  return type;
}

import type { Mask, MaskType, RuleType, ValidationRule } from "../definition/types.js";
import {
  about,
  type GlyueExport,
  type GlyueRow,
  linkOf,
  notesOf,
  readBoolean,
  readCell,
  readNumber,
  readText,
  withoutUndefined,
} from "./glyue-export.js";
import { reportLeftFields } from "./glyue-fields.js";
import type { ImportReportItem } from "./report.js";
import { type Converted, inSequence, noteAbove } from "./yaml-document.js";

/** What converting an integration's masks and validation rules needs. */
export interface CheckScope {
  tables: GlyueExport["tables"];
  /** The formula variables of the integration's service requests that were written, by row id. */
  variables: ReadonlyMap<string, string>;
  report: ImportReportItem[];
}

/** The integration a mask or validation rule belongs to: its own link, else its service request's. */
export function integrationOf(row: GlyueRow, tables: GlyueExport["tables"]): string | undefined {
  const own = linkOf(row, "integration");
  if (own !== undefined) return own;
  const request = tables.servicerequest.find((candidate) => candidate.id === linkOf(row, "servicerequest"));
  return request && linkOf(request, "integration");
}

/** The masks of an integration, in sequence order. */
export function convertMasks(integration: GlyueRow, scope: CheckScope): Converted<Mask[]> {
  const rows = scope.tables.mask.filter((row) => integrationOf(row, scope.tables) === integration.id);
  return inSequence(
    "masks",
    rows.flatMap((row) => convertMask(row, scope) ?? []),
  );
}

/** The validation rules of an integration, in sequence order. */
export function convertValidationRules(
  integration: GlyueRow,
  scope: CheckScope,
): Converted<ValidationRule[]> {
  const rows = scope.tables.validationrule.filter(
    (row) => integrationOf(row, scope.tables) === integration.id,
  );
  return inSequence(
    "validation_rules",
    rows.flatMap((row) => convertRule(row, scope) ?? []),
  );
}

function convertMask(row: GlyueRow, scope: CheckScope): Converted<Mask> | undefined {
  const { report } = scope;
  const type = readType(row, ["INPUT", "RESPONSE"], report);
  const request = type && linkedRequest(row, scope);
  if (type === undefined || request === false) return undefined;
  const field = readText(row, "field", report);
  if (field === undefined) {
    report.push(about(row, "field", "is empty; the mask is not carried over"));
    return undefined;
  }
  const times = readNumber(row, "abort_if_not_applied_x_times", report);
  const mask: Mask = {
    type,
    service_request: request,
    sequence: readNumber(row, "sequence", report),
    // Kept as written: bass's paths take brackets (["top:level"]), and, with apply_to_each, are relative to each item.
    field,
    apply_to_each: readText(row, "apply_to_each", report),
    apply_if: readCell(row, "apply_if", report),
    abort_if_not_applied_x_times: times === undefined || times === 0 ? undefined : times,
  };
  reportLeftFields(row, report);
  return { value: withoutUndefined(mask), notes: noteAbove(notesOf(row)) };
}

function convertRule(row: GlyueRow, scope: CheckScope): Converted<ValidationRule> | undefined {
  const { report } = scope;
  const type = readType(row, ["INPUT", "REQUEST", "RESPONSE"], report);
  const request = type && linkedRequest(row, scope);
  if (type === undefined || request === false) return undefined;
  const rule: ValidationRule = {
    type,
    service_request: request,
    sequence: readNumber(row, "sequence", report),
    field: readCell(row, "field", report) ?? null,
    rule: readCell(row, "rule", report) ?? null,
    message: readText(row, "message", report),
    apply_if: readCell(row, "apply_if", report),
    apply_to_each: readCell(row, "apply_to_each", report),
    abort_on_failure: readBoolean(row, "abort_on_failure", report),
    message_substitution_name: readText(row, "message_substitution_name", report),
    pass_hook: readCell(row, "pass_hook", report),
    fail_hook: readCell(row, "fail_hook", report),
  };
  reportLeftFields(row, report);
  return { value: withoutUndefined(rule), notes: noteAbove(notesOf(row)) };
}

/** A mask's or rule's type, upper-cased (the platform also writes Input); undefined, and reported, when bass has no such type. */
function readType<T extends MaskType | RuleType>(
  row: GlyueRow,
  types: readonly T[],
  report: ImportReportItem[],
): T | undefined {
  const written = readText(row, "type", report);
  const type = types.find((candidate) => candidate === written?.trim().toUpperCase());
  if (type === undefined) {
    const why = written === undefined ? "is empty" : `${written} is none of ${types.join(", ")}`;
    report.push(
      about(
        row,
        "type",
        `${why}; the ${row.table === "mask" ? "mask" : "validation rule"} is not carried over`,
      ),
    );
  }
  return type;
}

/**
 * The formula variable of the service request a mask or rule names; undefined when it names none, false
 * when that request is not in the definition (a sub-request, or a dangling id, reported where it is found).
 */
function linkedRequest(row: GlyueRow, scope: CheckScope): string | undefined | false {
  const link = linkOf(row, "servicerequest");
  if (link === undefined) return undefined;
  const variable = scope.variables.get(link);
  if (variable !== undefined) return variable;
  if (scope.tables.servicerequest.some((request) => request.id === link)) {
    const what = row.table === "mask" ? "mask" : "validation rule";
    scope.report.push(
      about(
        row,
        "servicerequest",
        `service request ${link} is not in this integration's definition; the ${what} is not carried over`,
      ),
    );
  }
  return false;
}

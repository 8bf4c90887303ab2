import { serviceRequestHooks } from "../definition/types.js";
import { about, type GlyueRow, type GlyueTableName, isEmpty } from "./glyue-export.js";
import type { ImportReportItem } from "./report.js";

const noSubRequests = "bass has no sub-requests; not carried over";
const preMapping = "pre-mapping notes have no place in a bass definition; not carried over";

/**
 * The fields of each table: those the import carries (links and notes included), and those it knows but
 * has no place for, with why. A field of neither kind is unknown.
 */
const tableFields: Record<GlyueTableName, { carried: string[]; left?: Record<string, string> }> = {
  integration: {
    carried: [
      "path_name",
      "description",
      "run_async",
      "http_api",
      "before_hook",
      "on_success_hook",
      "on_failure_hook",
      "finally_hook",
      "swagger_request",
    ],
    left: {
      swagger_response:
        "a response schema has no place in a bass definition; not carried over (an endpoint's responses can describe the answers)",
      tags: "bass has no tags; not carried over",
    },
  },
  servicerequest: {
    carried: [
      "integration",
      "parent_servicerequest",
      "formula_variable",
      "system",
      "service_name",
      "sequence",
      "call_if",
      "call_for_each",
      "abort_after_execute_request_failure",
      "message_substitution_name",
      ...serviceRequestHooks,
      "notes",
    ],
    left: { skip_execute_if_no_sub_requests: noSubRequests },
  },
  fieldmapping: {
    carried: [
      "servicerequest",
      "field",
      "value",
      "value_type",
      "nullable",
      "include_if",
      "include_for_each",
      "valuemappingset",
      "message_substitution_name",
      "sequence",
      "notes",
    ],
    left: {
      target_record_type: preMapping,
      target_field_name: preMapping,
      source_record_type: preMapping,
      source_field_name: preMapping,
    },
  },
  mask: {
    carried: [
      "integration",
      "servicerequest",
      "type",
      "field",
      "apply_if",
      "apply_to_each",
      "abort_if_not_applied_x_times",
      "sequence",
      "notes",
    ],
  },
  validationrule: {
    carried: [
      "integration",
      "servicerequest",
      "type",
      "field",
      "rule",
      "message",
      "apply_if",
      "apply_to_each",
      "pass_hook",
      "fail_hook",
      "abort_on_failure",
      "message_substitution_name",
      "sequence",
      "notes",
    ],
    left: {
      valuemappingset: "bass's validation rules map no values; not carried over",
      valuemappingset_side: "bass's validation rules map no values; not carried over",
      max_length: "bass's validation rules have no max_length (check the length in rule); not carried over",
    },
  },
  valuemappingset: {
    carried: [
      "integration",
      "name",
      "description",
      "notes",
      "case_sensitive",
      "use_default_to_value",
      "default_to_value",
    ],
  },
  valuemapping: { carried: ["valuemappingset", "from_value", "to_value", "notes"] },
  system: { carried: ["name", "type", "url", "base_url", "description", "notes"] },
  vault: { carried: ["name", "items", "secrets", "description", "notes"] },
};

/**
 * Reports each field of a written row that the import does not carry: a known one with why, an unknown
 * one as such. A field that carries nothing (empty, or false for a known one) is not reported.
 */
export function reportLeftFields(row: GlyueRow, report: ImportReportItem[]): void {
  const { carried, left = {} } = tableFields[row.table];
  for (const [field, value] of Object.entries(row.fields)) {
    if (field === "id" || carried.includes(field) || isEmpty(value)) continue;
    const why = left[field];
    if (why === undefined) report.push(about(row, field, "a field bass does not know; not carried over"));
    else if (value !== false) report.push(about(row, field, why));
  }
}

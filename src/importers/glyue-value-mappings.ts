import type { ValueMapping, ValueMappingSet } from "../definition/types.js";
import {
  about,
  type GlyueExport,
  type GlyueRow,
  linkOf,
  notesOf,
  readBoolean,
  readText,
  shown,
  withoutUndefined,
} from "./glyue-export.js";
import { reportLeftFields } from "./glyue-fields.js";
import type { ImportReportItem } from "./report.js";
import { asList, type Converted, noteAbove } from "./yaml-document.js";

/**
 * Every value mapping set of the export with its mappings, by row id: made once, each then written into
 * the integration it belongs to and into every integration whose field mappings use it.
 */
export function convertValueMappingSets(
  tables: GlyueExport["tables"],
  report: ImportReportItem[],
): Map<string, Converted<ValueMappingSet>> {
  const sets = new Map<string, Converted<ValueMappingSet>>();
  for (const row of tables.valuemappingset) {
    const name = readText(row, "name", report);
    if (name === undefined) {
      report.push(
        about(row, "name", "a value mapping set without a name; not carried over, nor its mappings"),
      );
      continue;
    }
    const rows = tables.valuemapping.filter((mapping) => linkOf(mapping, "valuemappingset") === row.id);
    const mappings = asList(
      "mappings",
      rows.flatMap((mapping) => convertValueMapping(mapping, report) ?? []),
    );
    const set: ValueMappingSet = withoutUndefined({
      name,
      case_sensitive: readBoolean(row, "case_sensitive", report) || undefined,
      // The platform uses its default only when told to; without one, bass returns the value unchanged too.
      default_to_value: readBoolean(row, "use_default_to_value", report)
        ? asText(row, "default_to_value", report)
        : undefined,
      mappings: mappings.value,
    });
    reportLeftFields(row, report);
    sets.set(row.id, { value: set, notes: [...noteAbove(notesOf(row)), ...mappings.notes] });
  }
  return sets;
}

function convertValueMapping(row: GlyueRow, report: ImportReportItem[]): Converted<ValueMapping> | undefined {
  const from = row.fields.from_value;
  if (typeof from !== "string" && typeof from !== "number" && typeof from !== "boolean") {
    report.push(
      about(row, "from_value", `is not text, a number or true/false (${shown(from)}); not carried over`),
    );
    return undefined;
  }
  const to = asText(row, "to_value", report);
  if (to === undefined) {
    if (row.fields.to_value == null) report.push(about(row, "to_value", "is empty; not carried over"));
    return undefined;
  }
  reportLeftFields(row, report);
  return { value: { from, to }, notes: noteAbove(notesOf(row)) };
}

/**
 * A field bass holds as text: text as it is (empty too), a number or true/false written as text (and
 * reported), undefined for null; anything else is reported.
 */
function asText(row: GlyueRow, field: string, report: ImportReportItem[]): string | undefined {
  const value = row.fields[field];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") {
    const text = String(value);
    report.push(about(row, field, `is ${shown(value)}, and bass maps to text: written as "${text}"`));
    return text;
  }
  if (value !== undefined && value !== null)
    report.push(about(row, field, `is not text (${shown(value)}); not carried over`));
  return undefined;
}

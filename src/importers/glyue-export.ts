import { BassError } from "../errors.js";
import { isObject } from "../objects.js";
import type { ImportReportItem } from "./report.js";

/** The tables of a Glyue export that bass reads; any other is reported and left out. */
export const glyueTables = [
  "integration",
  "servicerequest",
  "fieldmapping",
  "mask",
  "validationrule",
  "valuemappingset",
  "valuemapping",
  "system",
  "vault",
] as const;

export type GlyueTableName = (typeof glyueTables)[number];

/** One row of a table: its id (its key under `rows`) and its fields as the platform wrote them. */
export interface GlyueRow {
  table: GlyueTableName;
  id: string;
  fields: Record<string, unknown>;
}

/** An export as bass reads it: every table it knows (empty when absent), and the names of the others. */
export interface GlyueExport {
  tables: Record<GlyueTableName, GlyueRow[]>;
  otherTables: string[];
}

const rowsShape = '{ "rows": { "<id>": { …fields } } }';
const reExport = "export the integrations from the platform again, as JSON";

/**
 * The tables of a parsed export, checked: an object of tables, each `{ "rows": { "<id>": { … } } }`, and
 * at least one integration. `label` names the file in errors, which are usage errors (exit 2).
 */
export function readGlyueExport(value: unknown, label: string): GlyueExport {
  if (!isObject(value)) {
    const found = value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`;
    throw new BassError(
      "INPUT_INVALID",
      `${label} is not a Glyue export: it holds ${found}, not an object of tables (integration, servicerequest, …); ${reExport}`,
    );
  }
  const known = new Set<string>(glyueTables);
  const tables = Object.fromEntries(
    glyueTables.map((name) => [name, readTable(name, value[name], label)]),
  ) as Record<GlyueTableName, GlyueRow[]>;
  if (tables.integration.length === 0) {
    throw new BassError(
      "INPUT_INVALID",
      `${label} holds no integration (its integration table is missing or has no rows); ${reExport}`,
    );
  }
  return { tables, otherTables: Object.keys(value).filter((name) => !known.has(name)) };
}

function readTable(name: GlyueTableName, table: unknown, label: string): GlyueRow[] {
  if (table === undefined) return [];
  if (!isObject(table) || !isObject(table.rows))
    throw new BassError("INPUT_INVALID", `${label}: table ${name} is not ${rowsShape}; ${reExport}`);
  return Object.entries(table.rows).map(([id, fields]) => {
    if (!isObject(fields))
      throw new BassError("INPUT_INVALID", `${label}: row ${id} of table ${name} is not an object of fields`);
    return { table: name, id, fields };
  });
}

/** A report item about one field of a row. */
export function about(row: GlyueRow, field: string | undefined, message: string): ImportReportItem {
  return { table: row.table, row: row.id, ...(field === undefined ? {} : { field }), message };
}

/** Whether a value carries nothing: absent, null, "", an empty list or object. */
export function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** The id a link field holds, as text (ids are keys of `rows`); undefined when it links nothing. */
export function linkOf(row: GlyueRow, field: string): string | undefined {
  const value = row.fields[field];
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/** A field that holds text, or undefined when empty; anything else is reported. */
export function readText(row: GlyueRow, field: string, report: ImportReportItem[]): string | undefined {
  const value = row.fields[field];
  if (isEmpty(value)) return undefined;
  if (typeof value === "string") return value;
  report.push(about(row, field, `is not text (${shown(value)}); not carried over`));
  return undefined;
}

/**
 * A code cell as written, its line ends made `\n` (a YAML block holds no `\r`), or undefined when it holds
 * no code.
 */
export function readCell(row: GlyueRow, field: string, report: ImportReportItem[]): string | undefined {
  const code = readText(row, field, report)?.replace(/\r\n?/g, "\n");
  return code === undefined || code.trim() === "" ? undefined : code;
}

/** A field that holds true or false, or undefined when empty; anything else is reported. */
export function readBoolean(row: GlyueRow, field: string, report: ImportReportItem[]): boolean | undefined {
  const value = row.fields[field];
  if (isEmpty(value)) return undefined;
  if (typeof value === "boolean") return value;
  report.push(about(row, field, `is not true or false (${shown(value)}); not carried over`));
  return undefined;
}

/** A number, also written as text ("2", as the platform writes some), or undefined when empty. */
export function readNumber(row: GlyueRow, field: string, report: ImportReportItem[]): number | undefined {
  const value = row.fields[field];
  if (isEmpty(value)) return undefined;
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number === "number" && Number.isFinite(number)) return number;
  report.push(about(row, field, `is not a number (${shown(value)}); not carried over`));
  return undefined;
}

/** A row's documentation (`description`, `notes`), for a comment above what it became. */
export function notesOf(
  row: GlyueRow,
  fields: readonly string[] = ["description", "notes"],
): string | undefined {
  const texts = fields.map((field) => row.fields[field]).filter((value) => typeof value === "string");
  const text = texts
    .map((value) => value.trim())
    .filter((value) => value !== "")
    .join("\n");
  return text === "" ? undefined : text;
}

/** A value as a report shows it: its JSON, cut to a few words. */
export function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 39)}…` : json;
}

/** An object without its undefined keys, so that the YAML holds only what was carried. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

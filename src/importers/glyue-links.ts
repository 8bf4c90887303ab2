import { closest } from "../suggest.js";
import { about, type GlyueExport, type GlyueTableName, glyueTables, linkOf } from "./glyue-export.js";
import type { ImportReportItem } from "./report.js";

/** What of an export leads nowhere: tables bass does not read, links to no row, rows that belong to nothing. */
export function reportLooseParts(exported: GlyueExport, report: ImportReportItem[]): void {
  for (const table of exported.otherTables) {
    const guess = closest(table, glyueTables);
    const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
    report.push({ table, message: `not a table bass reads${hint}; not carried over` });
  }
  reportLooseRows(exported.tables, report);
}

/**
 * The links between rows, each named after the table it points into, and what becomes of a row whose
 * link leads nowhere.
 */
const links: [table: GlyueTableName, link: GlyueTableName, outcome: string][] = [
  ["servicerequest", "integration", "not carried over"],
  ["fieldmapping", "servicerequest", "not carried over"],
  ["fieldmapping", "valuemappingset", "written without it"],
  ["mask", "integration", "not carried over"],
  ["mask", "servicerequest", "not carried over"],
  ["validationrule", "integration", "not carried over"],
  ["validationrule", "servicerequest", "not carried over"],
  ["valuemapping", "valuemappingset", "not carried over"],
  ["valuemappingset", "integration", "written only where field mappings use it"],
];

function reportLooseRows(tables: GlyueExport["tables"], report: ImportReportItem[]): void {
  reportBrokenLinks(tables, report);
  reportOrphans(tables, report);
}

/** Rows that link to a row the export does not hold. */
function reportBrokenLinks(tables: GlyueExport["tables"], report: ImportReportItem[]): void {
  for (const [table, link, outcome] of links) {
    const ids = new Set(tables[link].map((row) => row.id));
    const broken = tables[table].filter((row) => {
      const id = linkOf(row, link);
      return id !== undefined && !ids.has(id);
    });
    for (const row of broken)
      report.push(about(row, link, `no ${link} ${linkOf(row, link)} in the export; ${outcome}`));
  }
}

/** The tables whose rows must belong to one of these: a row that belongs to none is left out. */
const owners: Partial<Record<GlyueTableName, string[]>> = {
  servicerequest: ["integration"],
  fieldmapping: ["servicerequest"],
  mask: ["integration", "servicerequest"],
  validationrule: ["integration", "servicerequest"],
  valuemapping: ["valuemappingset"],
};

/** Rows that belong to nothing, and value mapping sets that no integration or field mapping uses. */
function reportOrphans(tables: GlyueExport["tables"], report: ImportReportItem[]): void {
  for (const [table, fields] of Object.entries(owners) as [GlyueTableName, string[]][]) {
    const orphans = tables[table].filter((row) => fields.every((field) => linkOf(row, field) === undefined));
    for (const row of orphans)
      report.push(about(row, undefined, `belongs to no ${fields.join(" or ")}; not carried over`));
  }
  const used = new Set(tables.fieldmapping.map((mapping) => linkOf(mapping, "valuemappingset")));
  for (const set of tables.valuemappingset) {
    if (linkOf(set, "integration") === undefined && !used.has(set.id))
      report.push(
        about(set, undefined, "belongs to no integration and no field mapping uses it; not carried over"),
      );
  }
}

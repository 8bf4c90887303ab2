/** One thing an import could not carry over: where it was in the export, and what became of it. */
export interface ImportReportItem {
  /** The export's table, as the export names it. */
  table: string;
  /** The row's id in that table; absent for an item about a whole table. */
  row?: string;
  field?: string;
  message: string;
}

/** One item as a line: `servicerequest 12 parent_servicerequest: …`. */
export function formatReportItem(item: ImportReportItem): string {
  return `${place(item)}: ${item.message}`;
}

function place(item: ImportReportItem): string {
  return [item.table, item.row, item.field].filter((part) => part !== undefined).join(" ");
}

/** The text of IMPORT-REPORT.md: what `command` could not carry over from `source`, a line per item. */
export function createReportMarkdown(
  command: string,
  source: string,
  items: readonly ImportReportItem[],
): string {
  const head = `# Import report\n\nWhat \`${command}\` could not carry over from \`${source}\`, one line each: the export's table, row id and field, then what became of it.\n\n`;
  if (items.length === 0) return `${head}Nothing: everything in the export was carried over.\n`;
  return `${head}${items.map((item) => `- \`${place(item)}\`: ${item.message}\n`).join("")}`;
}

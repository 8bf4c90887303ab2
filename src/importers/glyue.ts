import type { Definition, ProjectConfig } from "../definition/types.js";
import { type GlyueExport, glyueTables } from "./glyue-export.js";
import { convertIntegration, integrationName } from "./glyue-integration.js";
import { reportLooseParts } from "./glyue-links.js";
import { createSystems, createVaults } from "./glyue-project.js";
import { convertValueMappingSets } from "./glyue-value-mappings.js";
import type { ImportReportItem } from "./report.js";
import type { ImportedYaml } from "./yaml-document.js";

/** A Glyue export as a bass project: a definition per integration, the project file, and the report. */
export interface GlyueImport {
  definitions: ImportedYaml<Definition>[];
  project: ImportedYaml<ProjectConfig>;
  report: ImportReportItem[];
}

export interface ConvertGlyueExportOptions {
  /** The export's name, as the files' headers name it. */
  source: string;
}

/** Converts an export's tables into a bass project; what it cannot carry over is in `report`. */
export function convertGlyueExport(exported: GlyueExport, options: ConvertGlyueExportOptions): GlyueImport {
  const { tables } = exported;
  const report: ImportReportItem[] = [];
  reportLooseParts(exported, report);
  const systems = createSystems(tables.system, report);
  const sets = convertValueMappingSets(tables, report);
  const setNames = new Map([...sets].map(([id, set]) => [id, set.value.name]));
  const names = new Set<string>();
  const definitions: ImportedYaml<Definition>[] = [];
  for (const row of tables.integration) {
    const name = integrationName(row, names, tables, report);
    if (name === undefined) continue;
    const converted = convertIntegration(row, name, { tables, systems, sets, setNames, report });
    definitions.push({
      path: `integrations/${name}.yaml`,
      ...converted,
      header: [`${name}: integration ${row.id} of ${options.source}, imported by bass import glyue.`],
    });
  }
  const vaults = createVaults(tables.vault, report);
  const project: ProjectConfig = { integrations: "integrations", systems: systems.config };
  if (Object.keys(vaults.vaults).length > 0) project.vaults = vaults.vaults;
  return {
    definitions,
    project: {
      path: "bass.config.yaml",
      value: project,
      notes: [...systems.notes, ...vaults.notes],
      header: [
        `The bass project imported from ${options.source} by bass import glyue: its systems and vaults.`,
        "What could not be carried over is listed in IMPORT-REPORT.md.",
      ],
    },
    report: inReportOrder(report),
  };
}

const tableOrder = new Map<string, number>(glyueTables.map((table, index) => [table, index]));

/** The report in the export's order: unknown tables first, then table by table, row by row. */
function inReportOrder(items: ImportReportItem[]): ImportReportItem[] {
  return items.toSorted(
    (a, b) =>
      (tableOrder.get(a.table) ?? -1) - (tableOrder.get(b.table) ?? -1) ||
      (a.row ?? "").localeCompare(b.row ?? "", "en", { numeric: true }),
  );
}

import { basename, relative, resolve } from "node:path";
import { BassError, isBassError } from "../errors.js";
import { convertGlyueExport } from "../importers/glyue.js";
import { readGlyueExport } from "../importers/glyue-export.js";
import { createReportMarkdown, formatReportItem } from "../importers/report.js";
import { type ImportedYaml, stringifyImported } from "../importers/yaml-document.js";
import { readJsonFile } from "../project/data-file.js";
import {
  assertNotAFile,
  firstSteps,
  keepStateOutOfGit,
  refuseTakenFiles,
  schemasFrom,
  writeNewFile,
} from "./new-project-files.js";
import type { Output } from "./output.js";

export interface ImportGlyueOptions {
  /** The folder to write the project in, as given (default: the current folder). */
  out?: string | undefined;
  cwd: string;
  /** How the user runs bass (`npx bass` through npx), for the commands printed at the end. */
  command: string;
}

const reportFile = "IMPORT-REPORT.md";

/**
 * `bass import glyue EXPORT.json [--out DIR]`: the export as a bass project, and a report of what it could
 * not carry over, printed and written to IMPORT-REPORT.md. Writes over no file (exit 2, nothing written).
 */
export function runImportGlyue(file: string, options: ImportGlyueOptions, output: Output): number {
  const exported = readGlyueExport(readExport(resolve(options.cwd, file), file), file);
  // The files name the export by its file name: a path as given (/home/ada/Downloads/…) is one machine's.
  const imported = convertGlyueExport(exported, { source: basename(file) });
  const target = resolve(options.cwd, options.out ?? ".");
  assertNotAFile(
    target,
    options.out ?? ".",
    "bass import glyue --out takes the folder to write the project in",
  );
  const files = [
    ...[...imported.definitions, imported.project].map((yaml) => ({
      path: yaml.path,
      text: yamlText(target, yaml),
    })),
    { path: reportFile, text: createReportMarkdown("bass import glyue", basename(file), imported.report) },
  ];
  refuseTakenFiles(
    target,
    files.map(({ path }) => path),
    "bass import glyue",
    `choose an empty folder (bass import glyue ${file} --out my-project)`,
  );
  for (const { path, text } of files) writeNewFile(target, path, text);
  const written = files.length + keepStateOutOfGit(target);

  const where = relative(options.cwd, target) || ".";
  const systems = Object.keys(imported.project.value.systems ?? {}).length;
  output.stdout(
    `imported ${count(imported.definitions.length, "integration")} and ${count(systems, "system")} from ${file} into ${where} (${count(written, "file")})\n`,
  );
  const { report } = imported;
  const reportPath = where === "." ? reportFile : `${where}/${reportFile}`;
  output.stdout(
    report.length === 0
      ? `everything was carried over (${reportPath} says so too)\n`
      : `not carried over (${count(report.length, "item")}, also in ${reportPath}):\n${report.map((item) => `  ${formatReportItem(item)}\n`).join("")}`,
  );
  const { steps: first, bass } = firstSteps(target, where, options.command);
  const steps = [...first, `${bass} validate`, `${bass} list`];
  output.stdout(`Next:\n${steps.map((step) => `  ${step}\n`).join("")}`);
  return 0;
}

/** The export's JSON; a syntax error names the file, line and column, and says what to do. */
function readExport(path: string, label: string): unknown {
  try {
    return readJsonFile(path, label);
  } catch (error) {
    if (!isBassError(error) || error.code !== "INPUT_INVALID") throw error;
    throw new BassError(
      "INPUT_INVALID",
      `${error.message}; bass import glyue reads the JSON file the platform exports: mend it there, or export the integrations again`,
    );
  }
}

/** A YAML file of the import, opening with a `$schema` comment that points at this bass's schemas. */
function yamlText(target: string, yaml: ImportedYaml<unknown>): string {
  const schema = yaml.path === "bass.config.yaml" ? "project" : "definition";
  const line = `yaml-language-server: $schema=${schemasFrom(target, yaml.path)}/${schema}.schema.json`;
  return stringifyImported({ ...yaml, header: [line, "", ...yaml.header] });
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

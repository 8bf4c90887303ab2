import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { coverageOf, coverageTable, percent, toCobertura, toLcov, totalsOf } from "../coverage/report.js";
import type { CoverageHits } from "../engine/coverage.js";
import type { Project } from "../project/project.js";
import { isBlocking, issuesOf } from "../project/usable.js";
import type { Output } from "./output.js";

export interface CoverageOptions {
  /** Where lcov.info and cobertura.xml go, relative to `cwd`. */
  dir: string;
  /** The least share of lines, in %, the suite must reach; below it `bass test` exits 1. */
  threshold: number | undefined;
  cwd: string;
  /** Where the table goes: stdout after a text report, stderr after a JSON or JUnit document. */
  toStdout: boolean;
}

/**
 * Writes `lcov.info` and `cobertura.xml` of the definitions the project can run, prints their table and
 * the files written, and says whether the lines reached meet the threshold.
 */
export function reportCoverage(
  project: Project,
  hits: CoverageHits,
  options: CoverageOptions,
  output: Output,
): boolean {
  const usable = project.definitions.filter(
    (loaded) => !issuesOf(project.issues, [loaded.file]).some(isBlocking),
  );
  const definitions = usable.map((loaded) => {
    const { name, sites } = project.compile(loaded);
    return { integration: name, file: loaded.path, sites };
  });
  const files = coverageOf(definitions, hits);
  const dir = resolve(options.cwd, options.dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "lcov.info"), toLcov(files, options.cwd));
  writeFileSync(join(dir, "cobertura.xml"), toCobertura(files, options.cwd, Math.floor(Date.now() / 1000)));
  const print = options.toStdout ? output.stdout : output.stderr;
  print(
    `\nDefinition coverage\n${coverageTable(files, options.cwd)}wrote ${join(options.dir, "lcov.info")} and ${join(options.dir, "cobertura.xml")}\n`,
  );
  const lines = percent(totalsOf(files).lines);
  if (options.threshold === undefined || lines >= options.threshold) return true;
  output.stderr(
    `bass: lines covered ${lines.toFixed(1)}% is below --coverage-threshold ${options.threshold}%\n`,
  );
  return false;
}

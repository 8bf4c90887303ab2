import { relative } from "node:path";
import type { CoverageHits, CoverageSite } from "../engine/coverage.js";

/** A definition's places that coverage counts, and the file they are in. */
export interface DefinitionSites {
  integration: string;
  /** The definition file's absolute path. */
  file: string;
  sites: readonly CoverageSite[];
}

/** A branch as reports show it: its line, its block (its site's place), and each way's count. */
export interface BranchCoverage {
  line: number;
  block: number;
  key: string;
  /** Whether the condition was reached at all; else neither way has a count. */
  reached: boolean;
  yes: number;
  no: number;
}

/** What the suite reached of one definition file. */
export interface FileCoverage {
  integration: string;
  file: string;
  /** Each line that holds a counted place, with how often the runs reached it. */
  lines: { line: number; hits: number }[];
  branches: BranchCoverage[];
  cells: { line: number; key: string; hits: number }[];
}

/** Each definition's coverage from the hits the suite's runs counted. */
export function coverageOf(definitions: readonly DefinitionSites[], hits: CoverageHits): FileCoverage[] {
  return definitions.map(({ integration, file, sites }) => {
    const counted = hits[integration] ?? {};
    const count = (site: CoverageSite) => counted[site.key] ?? [0, 0, 0];
    const lines = new Map<number, number>();
    for (const site of sites) lines.set(site.line, (lines.get(site.line) ?? 0) + count(site)[0]);
    const branches = sites.flatMap((site, block) => {
      if (!site.branch) return [];
      const [reached, yes, no] = count(site);
      return [{ line: site.line, block, key: site.key, reached: reached > 0, yes, no }];
    });
    const cells = sites
      .filter((site) => site.kind === "cell")
      .map((site) => ({ line: site.line, key: site.key, hits: count(site)[0] }));
    return {
      integration,
      file,
      lines: [...lines].sort(([a], [b]) => a - b).map(([line, lineHits]) => ({ line, hits: lineHits })),
      branches,
      cells,
    };
  });
}

/** Counts of one file or of all: found and hit, for lines, branches (two a condition) and cells. */
export interface Totals {
  lines: [hit: number, found: number];
  branches: [hit: number, found: number];
  cells: [hit: number, found: number];
}

export function totalsOf(files: readonly FileCoverage[]): Totals {
  const totals: Totals = { lines: [0, 0], branches: [0, 0], cells: [0, 0] };
  for (const file of files) {
    totals.lines[0] += file.lines.filter((line) => line.hits > 0).length;
    totals.lines[1] += file.lines.length;
    totals.branches[0] += file.branches.reduce(
      (sum, branch) => sum + (branch.yes > 0 ? 1 : 0) + (branch.no > 0 ? 1 : 0),
      0,
    );
    totals.branches[1] += file.branches.length * 2;
    totals.cells[0] += file.cells.filter((cell) => cell.hits > 0).length;
    totals.cells[1] += file.cells.length;
  }
  return totals;
}

/** A share in percent, 100 when there is nothing to cover. */
export function percent([hit, found]: [number, number]): number {
  return found === 0 ? 100 : (hit / found) * 100;
}

/** The LCOV tracefile: per file (its path from `root`) its cells as functions, its lines and its branches. */
export function toLcov(files: readonly FileCoverage[], root: string): string {
  return files
    .map((file) => {
      const out = ["TN:", `SF:${relative(root, file.file)}`];
      for (const cell of file.cells) out.push(`FN:${cell.line},${cell.key}`);
      for (const cell of file.cells) out.push(`FNDA:${cell.hits},${cell.key}`);
      out.push(`FNF:${file.cells.length}`, `FNH:${file.cells.filter((cell) => cell.hits > 0).length}`);
      for (const branch of file.branches) {
        const taken = (count: number) => (branch.reached ? String(count) : "-");
        out.push(`BRDA:${branch.line},${branch.block},0,${taken(branch.yes)}`);
        out.push(`BRDA:${branch.line},${branch.block},1,${taken(branch.no)}`);
      }
      const totals = totalsOf([file]);
      out.push(`BRF:${totals.branches[1]}`, `BRH:${totals.branches[0]}`);
      for (const line of file.lines) out.push(`DA:${line.line},${line.hits}`);
      out.push(`LF:${totals.lines[1]}`, `LH:${totals.lines[0]}`, "end_of_record");
      return `${out.join("\n")}\n`;
    })
    .join("");
}

const xmlText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const rate = (counts: [number, number]) => (percent(counts) / 100).toFixed(4);

/** Cobertura 0.4 XML, as GitLab and Azure DevOps read it: a class per definition, paths from `root`. */
export function toCobertura(files: readonly FileCoverage[], root: string, timestamp: number): string {
  const all = totalsOf(files);
  const classes = files.map((file) => {
    const totals = totalsOf([file]);
    const branchesAt = new Map<number, BranchCoverage[]>();
    for (const branch of file.branches)
      branchesAt.set(branch.line, [...(branchesAt.get(branch.line) ?? []), branch]);
    const lines = file.lines.map(({ line, hits }) => {
      const at = branchesAt.get(line);
      if (!at) return `          <line number="${line}" hits="${hits}" branch="false"/>`;
      const taken = at.reduce((sum, branch) => sum + (branch.yes > 0 ? 1 : 0) + (branch.no > 0 ? 1 : 0), 0);
      const share = Math.round((taken / (at.length * 2)) * 100);
      return `          <line number="${line}" hits="${hits}" branch="true" condition-coverage="${share}% (${taken}/${at.length * 2})"/>`;
    });
    return [
      `      <class name="${xmlText(file.integration)}" filename="${xmlText(relative(root, file.file))}" line-rate="${rate(totals.lines)}" branch-rate="${rate(totals.branches)}" complexity="0">`,
      "        <methods/>",
      "        <lines>",
      ...lines,
      "        </lines>",
      "      </class>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" ?>',
    '<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">',
    `<coverage line-rate="${rate(all.lines)}" branch-rate="${rate(all.branches)}" lines-covered="${all.lines[0]}" lines-valid="${all.lines[1]}" branches-covered="${all.branches[0]}" branches-valid="${all.branches[1]}" complexity="0" version="0.4" timestamp="${timestamp}">`,
    "  <sources>",
    `    <source>${xmlText(root)}</source>`,
    "  </sources>",
    "  <packages>",
    `    <package name="definitions" line-rate="${rate(all.lines)}" branch-rate="${rate(all.branches)}" complexity="0">`,
    "    <classes>",
    ...classes,
    "    </classes>",
    "    </package>",
    "  </packages>",
    "</coverage>",
    "",
  ].join("\n");
}

/** The table the terminal shows: per definition its lines, branches and cells in %, and its lines never reached. */
export function coverageTable(files: readonly FileCoverage[], root: string): string {
  const rows = files.map((file) => {
    const totals = totalsOf([file]);
    const missed = file.lines.filter((line) => line.hits === 0).map((line) => line.line);
    return [
      relative(root, file.file),
      `${percent(totals.lines).toFixed(1)}`,
      `${percent(totals.branches).toFixed(1)}`,
      `${percent(totals.cells).toFixed(1)}`,
      ranges(missed),
    ];
  });
  const all = totalsOf(files);
  rows.push([
    "All definitions",
    percent(all.lines).toFixed(1),
    percent(all.branches).toFixed(1),
    percent(all.cells).toFixed(1),
    "",
  ]);
  const head = ["Definition", "% Lines", "% Branches", "% Cells", "Uncovered lines"];
  const widths = head.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (row: string[]) =>
    row
      .map((text, column) =>
        column === 0 || column === 4
          ? text.padEnd(widths[column] as number)
          : text.padStart(widths[column] as number),
      )
      .join("  ")
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join("\n")}\n`;
}

/** Line numbers as ranges: 3-5, 9. */
function ranges(lines: readonly number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const start = lines[index] as number;
    let end = start;
    while (lines[index + 1] === end + 1) end = lines[++index] as number;
    parts.push(end === start ? String(start) : `${start}-${end}`);
  }
  return parts.join(", ");
}

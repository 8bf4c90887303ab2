import type { Env } from "../definition/load.js";
import { describeSchedule, nextRun, type Schedule } from "../definition/schedule.js";
import { openProject } from "../project/open.js";
import { brokenFiles } from "../project/usable.js";
import type { Output } from "./output.js";

export interface ListOptions {
  json: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
}

/** One integration as `bass list` shows it. */
interface Listed {
  name: string;
  file: string;
  endpoints: { method: string; path: string }[];
  systems: string[];
  active: boolean;
  /** It has findings that keep it from running (bass validate shows them). */
  broken: boolean;
  /** When bass serve runs it: its schedule, and the next time from now. */
  schedule?: { every?: string; cron?: string; tz?: string; next_run: string | null };
}

/** `bass list [--json]`: each integration with its endpoints, systems and file, broken ones marked. */
export async function runList(options: ListOptions, output: Output): Promise<number> {
  const project = await openProject({
    cwd: options.cwd,
    env: options.env,
    projectDir: options.project,
    cache: true,
    pythonHere: false,
  });
  const broken = brokenFiles(project.definitions, project.issues);
  const listed: Listed[] = project.definitions.map(({ file, value }) => ({
    name: typeof value?.name === "string" ? value.name : "",
    file,
    endpoints: (value?.endpoints ?? []).map(({ method, path }) => ({ method, path })),
    systems: [...new Set((value?.service_requests ?? []).map((request) => request.system))],
    active: value?.active !== false,
    broken: broken.includes(file),
    ...(value?.schedule ? { schedule: scheduleOf(value.schedule) } : {}),
  }));
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (options.json) {
    output.stdout(`${JSON.stringify(listed, null, 2)}\n`);
    return 0;
  }
  output.stdout(formatTable(listed) + formatSchedules(listed));
  return 0;
}

function scheduleOf(schedule: Schedule): NonNullable<Listed["schedule"]> {
  const { every, cron, tz } = schedule;
  return { every, cron, tz, next_run: nextRun(schedule)?.toISOString() ?? null };
}

/** The schedules under the table: each one's integration, its times and the next of them. */
function formatSchedules(listed: readonly Listed[]): string {
  const scheduled = listed.filter((integration) => integration.schedule);
  if (scheduled.length === 0) return "";
  const width = Math.max(...scheduled.map((integration) => integration.name.length));
  const lines = scheduled.map(({ name, schedule }) => {
    const next = schedule?.next_run ? `next ${schedule.next_run}` : "cannot run (bass validate says why)";
    return `  ${name.padEnd(width)}  ${describeSchedule(schedule as Schedule)}, ${next}`;
  });
  return `\nSCHEDULES (run by bass serve)\n${lines.join("\n")}\n`;
}

function formatTable(listed: readonly Listed[]): string {
  if (listed.length === 0) return "no integrations in the project\n";
  const rows = listed.map((integration) => [
    integration.name + (integration.broken ? " (broken)" : integration.active ? "" : " (inactive)"),
    integration.endpoints.map(({ method, path }) => `${method} ${path}`).join(", ") || "-",
    integration.systems.join(", ") || "-",
    integration.file,
  ]);
  const header = ["INTEGRATION", "ENDPOINTS", "SYSTEMS", "FILE"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[header, ...rows].map(line).join("\n")}\n`;
}

import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** The middle value of `values` (the mean of the two middle ones for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Times each command `runs` times, taking turns (A B A B …) so that a noisy neighbour slows all of
 * them alike; a first untimed round warms the disk cache. Throws when a command exits non-zero, since
 * the timing of a failure means nothing. Returns, per command, the median and every time in ms: the CPU
 * time (user + system) of the command's whole process tree, or with `clock: "wall"` its wall time.
 */
export function timeCommands(commands, { runs = 5, cwd, env, warmup = true, clock = "cpu" } = {}) {
  const measure = clock === "cpu" ? cpuTime : wallTime;
  const times = commands.map(() => []);
  for (let round = warmup ? -1 : 0; round < runs; round++) {
    commands.forEach((argv, index) => {
      const took = measure(argv, cwd, env);
      if (round >= 0) times[index].push(took);
    });
  }
  return times.map((all) => ({ median: median(all), times: all }));
}

/** Times one command `runs` times; see timeCommands. */
export function timeCommand(argv, options) {
  return timeCommands([argv], options)[0];
}

/**
 * The ratio of two commands timed in the same rounds, pair by pair (round i of `a` over round i of `b`):
 * a pair shares the machine's load of its moment. The median is the figure; min and max are the spread.
 */
export function pairRatios(a, b) {
  const ratios = a.times.map((time, index) => time / b.times[index]);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/**
 * The row of a command against a baseline command, both timed whole in the same rounds: `says(ratio)`
 * words what was measured, and the figures (medians, spread, pairs) follow it.
 */
export function commandPairRow({ name, measured, baseline, label, goal, runs, says }) {
  const ratio = pairRatios(measured, baseline);
  const figures = `${measured.median.toFixed(0)} vs ${baseline.median.toFixed(0)} ms, whole processes, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×, ${runs} pairs after a warm-up`;
  return {
    name,
    value: measured.median,
    baseline: { ms: baseline.median, label },
    ratio,
    goal,
    note: says(ratio.median.toFixed(2), figures),
  };
}

function wallTime(argv, cwd, env) {
  const started = performance.now();
  runCommand(argv, cwd, env);
  return performance.now() - started;
}

// bash's `times` prints the user and system time of the shell's finished children (the command and
// every process it waited for) on its second line, to the millisecond; its stdout is thrown away.
const cpuTimeScript = '"$@" >/dev/null; status=$?; times; exit $status';

function cpuTime(argv, cwd, env) {
  const printed = runCommand(["bash", "-c", cpuTimeScript, "bash", ...argv], cwd, env);
  const children = printed.trim().split("\n").at(-1) ?? "";
  const [user, system] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
    ([, minutes, seconds]) => (Number(minutes) * 60 + Number(seconds)) * 1000,
  );
  if (user === undefined || system === undefined) throw new Error(`no CPU times from bash: ${printed}`);
  return user + system;
}

/** Runs a command to its end and gives its stdout; throws with its output when it exits non-zero. */
export function runCommand(argv, cwd, env) {
  const [file, ...args] = argv;
  const result = spawnSync(file, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim().slice(0, 4000);
    throw new Error(`command failed (exit ${result.status ?? result.signal}): ${argv.join(" ")}\n${output}`);
  }
  return result.stdout;
}

/** The newest LTS line of Node, which users run and CI tests as well as the machine's own. */
const newestLts = "24";
let ltsNode;

/**
 * The environments start-up is timed in, each with the node that runs it. The goals are judged without
 * NODE_EXTRA_CA_CERTS, as users start node, on this machine's Node and on the newest LTS (from the npm
 * registry, skipped with a note where npx cannot fetch it); where the machine sets the variable, its own
 * environment informs too. With it set, every node process (`node -e 0` too) parses those certificates as
 * it starts, which on these machines doubles a bare start and so hides much of what a command adds to it.
 */
export function startupEnvironments() {
  const { NODE_EXTRA_CA_CERTS, ...clean } = process.env;
  const environments = [{ label: "", env: clean, node: process.execPath, judged: true }];
  ltsNode ??= findNode(newestLts);
  if (ltsNode) environments.push({ label: `, Node ${newestLts}`, env: clean, node: ltsNode, judged: true });
  if (NODE_EXTRA_CA_CERTS !== undefined)
    environments.push({
      label: ", NODE_EXTRA_CA_CERTS set",
      env: process.env,
      node: process.execPath,
      judged: false,
    });
  return environments;
}

/** The path of Node `major`'s binary from the npm registry (npx caches it), or "" where it cannot be had. */
function findNode(major) {
  const found = spawnSync("npx", ["-y", "-p", `node@${major}`, "--", "node", "-p", "process.execPath"], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (found.status === 0) return found.stdout.trim();
  console.error(
    `start-up on Node ${major} not measured: npx could not run it (${found.stderr.trim().slice(0, 200)})`,
  );
  return "";
}

const columns = [34, 14, 40, 8, 13, 28, 6];

/** Prints the table's heading; printRow fills the columns below it. */
export function printHeader() {
  printColumns(["measurement", "value", "baseline (same run)", "ratio", "spread", "goal", "result"]);
  console.log(columns.map((width) => "-".repeat(width)).join("  "));
}

/**
 * Prints one row: `value` in ms, the `baseline` ({ ms, label }) it is compared with, their ratio, and
 * whether `goal` ({ text, max, of: "value" | "ratio" }) holds (`max` is the most allowed). Without a goal
 * the row only informs. A row timed in pairs with its baseline gives `ratio` ({ median, min, max } of the
 * per-pair ratios, see pairRatios): its median is the ratio, and min–max is printed as the spread.
 *
 * With a `unit` other than "ms" (a rate such as "runs/s", where more is better) the baseline is
 * `{ value, label }` in that unit, the ratio is baseline / value (how many times the baseline's cost one
 * unit of work takes, so it reads like the ratio of times) and a goal may give `min` instead of `max`.
 * A goal's `holds: false` makes it a MISS whatever the value (a condition beside the number, such as
 * "no errors").
 */
export function printRow({ name, value, baseline, goal, unit = "ms", ratio: pairs }) {
  const rate = unit !== "ms";
  const ratio = pairs?.median ?? (rate ? baseline.value / value : value / baseline.ms);
  const measured = goal?.of === "ratio" ? ratio : value;
  const met =
    (goal?.holds ?? true) && (goal?.min !== undefined ? measured >= goal.min : measured <= goal?.max);
  const result = goal ? (met ? "PASS" : "MISS") : "";
  const format = rate ? (amount) => `${Math.round(amount)} ${unit}` : formatMs;
  printColumns([
    name,
    format(value),
    `${format(rate ? baseline.value : baseline.ms)} ${baseline.label}`,
    `${ratio.toFixed(2)}×`,
    pairs ? `${pairs.min.toFixed(2)}–${pairs.max.toFixed(2)}×` : "",
    goal?.text ?? "",
    result,
  ]);
}

function printColumns(cells) {
  console.log(
    cells
      .map((cell, index) => cell.padEnd(columns[index]))
      .join("  ")
      .trimEnd(),
  );
}

function formatMs(ms) {
  return `${ms < 10 ? ms.toFixed(3) : ms.toFixed(1)} ms`;
}

const samples = fileURLToPath(new URL("../samples", import.meta.url));

/** A copy of the samples at `root/samples`, without the `.bass` a run in the checkout left: its path. */
export function copySamples(root) {
  const project = join(root, "samples");
  cpSync(samples, project, {
    recursive: true,
    filter: (source) => !relative(samples, source).split(sep).includes(".bass"),
  });
  return project;
}

import { fileURLToPath } from "node:url";
import { pairRatios, startupEnvironments, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));

/**
 * Start-up: `bass --version` and `bass --help` against a bare `node -e 0`, CPU time of the whole process,
 * taking turns after a warm-up round, so each ratio is what bass adds to node. Timed in each of
 * `startupEnvironments()`; the goal (`--version`) is judged where it says.
 */
export async function measureStartup({ runs = 20 } = {}) {
  const flags = ["--version", "--help"];
  return startupEnvironments().flatMap(({ label, env, node, judged }) => {
    const commands = flags.map((flag) => [flag, [node, bass, flag]]);
    const [bareTimes, ...timed] = timeCommands([[node, "-e", "0"], ...commands.map(([, argv]) => argv)], {
      runs,
      env,
    });
    return commands.map(([flag], index) => {
      const times = timed[index];
      const ratio = pairRatios(times, bareTimes);
      return {
        name: `start-up, bass ${flag}${label}`,
        value: times.median,
        baseline: { ms: bareTimes.median, label: "node -e 0 (CPU)" },
        ratio,
        ...(judged && flag === "--version" ? { goal: { text: "at most 1.3×", max: 1.3, of: "ratio" } } : {}),
        note: `bass ${flag}${label} takes ${ratio.median.toFixed(2)}× the CPU time (user + sys) of a bare node start (median of ${runs} pairs, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×)`,
      };
    });
  });
}

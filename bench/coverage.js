import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { copySamples, pairRatios, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));

/**
 * What definition coverage costs: `bass test` of the samples' suite (59 cases, in worker threads, against
 * mocks and the embedded mock core) with `--coverage` against the same command without it, CPU of the
 * whole process (all threads), taking turns. The samples are copied to a temp dir first, without any `.bass`.
 */
export async function measureCoverage({ runs = 7 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-coverage-"));
  try {
    const project = copySamples(root);
    const test = [process.execPath, bass, "test", "--project", project];
    const [plain, covered] = timeCommands([test, [...test, "--coverage"]], { runs, cwd: root });
    const ratio = pairRatios(covered, plain);
    return [
      {
        name: "bass test --coverage",
        value: covered.median,
        baseline: { ms: plain.median, label: "bass test without it (CPU)" },
        ratio,
        goal: { text: "at most 1.2×", max: 1.2, of: "ratio" },
        note: `bass test of the samples' suite (59 cases) with --coverage takes ${ratio.median.toFixed(2)}× the CPU of the same command without it (${covered.median.toFixed(0)} vs ${plain.median.toFixed(0)} ms, whole processes, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×, ${runs} pairs after a warm-up)`,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
